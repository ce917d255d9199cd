"""Host side of ``portbench enumerate``: run the in-cell walker, read what it wrote."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from ..backends.base import Backend, PreparedEnvironment
from ..backends.launch import runner_argv, runner_environment
from ..cellrun import BuildOptions, choose_backend
from ..errors import CellFailed, ResultsError, UsageError
from ..paths import runners_dir
from ..results.safeio import read_bounded
from .provenance import CellIdentity, cell_identity, portbench_identity

__all__ = [
    "ENUMERATION_SCHEMA",
    "EnumeratedName",
    "Enumeration",
    "WalkOptions",
    "cell_python",
    "load_enumeration",
    "run_enumeration",
]

#: Schema history: 1 — first version (names with kind, module, aliases; rules; provenance).
ENUMERATION_SCHEMA = 1
KINDS = ("function", "class", "method")
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class EnumeratedName:
    """One public function, class or method of a framework, under its canonical path."""

    name: str
    kind: str
    module: str | None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Enumeration:
    """A framework's enumerated public API, as written by the in-cell walker."""

    path: Path
    sha256: str
    framework: str
    version: str
    python: str
    names: tuple[EnumeratedName, ...]
    provenance: dict[str, object] = field(default_factory=dict)
    """The walker's and the host's record: ``cell`` (profile, backend, image, lock) and
    ``portbench`` (version, commit) where the file was made by this version or later."""

    @property
    def cell(self) -> dict[str, object]:
        """The cell that walked the API; empty for files older than this record."""
        cell = self.provenance.get("cell")
        return dict(cell) if isinstance(cell, dict) else {}


#: Wall-clock limit of one walk, whichever way it runs (the docker backend's own
#: ``run_tool`` budget is the same): a walk that blocks in C, where the per-import timeout
#: cannot reach, ends here with a sentence instead of hanging the command.
WALK_TIMEOUT_S = 3600.0


@dataclass(frozen=True)
class WalkOptions:
    """What the walker lists (``portbench enumerate``'s flags)."""

    members: bool = False
    import_submodules: bool = False
    import_timeout_s: float | None = None
    """Seconds one submodule import may take; None: the walker's default (60 s)."""

    def args(self, framework: str, out: str) -> list[str]:
        """``python -m portbench_runner`` arguments for a walk that writes ``out``."""
        args = ["enumerate", "--framework", framework, "--out", out]
        args += ["--members"] if self.members else []
        args += ["--import-submodules"] if self.import_submodules else []
        if self.import_timeout_s is not None:
            args += ["--import-timeout", repr(self.import_timeout_s)]
        return args


def cell_python(
    framework: str,
    profile: str,
    python: str | None = None,
    backend: str = "auto",
    console: Console | None = None,
    build: BuildOptions | None = None,
) -> tuple[Backend | None, PreparedEnvironment]:
    """The environment the walker runs in, as ``bench`` would pick it for the CPU cell of
    (framework, profile): ``--python PATH`` first (a pinned profile's interpreter named by
    hand), else the backend ``--backend`` chooses (``auto``: docker where an engine answers,
    else venv; the host profile: this interpreter). Returns the backend (None for
    ``--python``) and what it prepared: a venv or the host give an interpreter
    (``.python``), docker an image (``.python`` is None)."""
    if python is not None and profile != "host":
        if backend != "auto":
            raise UsageError(
                f"--python runs the walker with {python}, not in a {backend} cell; "
                "drop one of --python and --backend"
            )
        return None, PreparedEnvironment(
            backend="python", description=f"interpreter {python} (--python)", python=python
        )
    console = console or Console(stderr=True)
    chosen = choose_backend(
        backend, profile, console, python=python if profile == "host" else None, build=build
    )
    # The public API does not depend on the accelerator: the CPU cell of the profile.
    return chosen, chosen.prepare(framework, "cpu", profile)


def _run_interpreter(interpreter: str, framework: str, args: list[str], pinned: bool) -> None:
    """Run the walker with ``interpreter``; a failure is one sentence (its last line)."""
    try:
        done = subprocess.run(
            runner_argv(interpreter, *args),
            env=runner_environment(str(runners_dir()), pinned),
            capture_output=True,
            text=True,
            check=False,
            timeout=WALK_TIMEOUT_S,
        )
    except OSError as exc:
        raise UsageError(
            f"cannot run {interpreter} ({exc.strerror}); pass a working --python"
        ) from None
    except subprocess.TimeoutExpired:
        raise CellFailed(
            f"enumerating {framework} with {interpreter} did not finish in "
            f"{WALK_TIMEOUT_S:.0f} s; run it without --import-submodules or with a smaller "
            "--import-timeout"
        ) from None
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise CellFailed(
            f"enumerating {framework} with {interpreter} failed: {tail}",
            exit_status=done.returncode,
            stderr_tail=done.stderr[-4000:],
        )


#: The largest listing a walk may leave (a walk with --members lists tens of thousands).
MAX_LISTING_BYTES = 256 << 20


def _run_container(
    chosen: Backend, prepared: PreparedEnvironment, framework: str, work: Path, walk: WalkOptions
) -> bytes:
    # In a container the runner is mounted read-only and one fresh folder is writable: the
    # walker writes its listing there, and the host reads it as untrusted input (no link
    # followed, its size bounded).
    status = chosen.run_tool(
        prepared, walk.args(framework, "/portbench/run/enumeration.json"), work
    )
    try:
        listing = read_bounded(work / "enumeration.json", MAX_LISTING_BYTES)
    except (OSError, ResultsError):
        listing = None
    if status != 0 or listing is None:
        log = work.parent / f"{work.name}.log"
        lines = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
        tail = lines[-1] if lines else "(no output)"
        raise CellFailed(
            f"enumerating {framework} in {prepared.description} failed: {tail}",
            exit_status=status,
        )
    return listing


def _write_with_provenance(listing: bytes, out: Path, cell: CellIdentity, where: str) -> None:
    """Write the walker's listing to ``out`` (never overwritten) with the host's provenance
    added: the walker knows its interpreter, only the host knows the cell's profile, image
    and lock, and the portbench commit that ran it."""
    try:
        doc = json.loads(listing)
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        raise CellFailed(f"enumerating in {where} left a listing that is not a JSON object")
    provenance = doc.get("provenance")
    doc["provenance"] = {
        **(provenance if isinstance(provenance, dict) else {}),
        "cell": cell,
        "portbench": portbench_identity(),
    }
    try:
        with open(out, "x", encoding="utf-8") as handle:
            json.dump(doc, handle, indent=1)
            handle.write("\n")
    except FileExistsError:
        raise UsageError(
            f"{out} exists; choose a new --out file (nothing is overwritten)"
        ) from None


def run_enumeration(
    framework: str,
    profile: str,
    out: Path,
    python: str | None = None,
    members: bool = False,
    import_submodules: bool = False,
    backend: str = "auto",
    console: Console | None = None,
    base: str | None = None,
    import_timeout_s: float | None = None,
    build: BuildOptions | None = None,
) -> Path:
    """Run the walker (``python -m portbench_runner enumerate``) in the cell of
    (framework, profile) chosen by :func:`cell_python`, with the runner on PYTHONPATH (an
    interpreter) or mounted (a container), and leave its JSON at ``out``. Returns ``out``."""
    if out.exists():
        raise UsageError(f"{out} exists; choose a new --out file (nothing is overwritten)")
    if not out.parent.is_dir():
        raise UsageError(f"{out.parent} is not a folder; create it or choose another --out")
    if import_timeout_s is not None and import_timeout_s < 0:
        raise UsageError("--import-timeout must be 0 (no limit) or more seconds")
    walk = WalkOptions(members, import_submodules, import_timeout_s)
    build = build or BuildOptions(base=base)
    chosen, prepared = cell_python(framework, profile, python, backend, console, build)
    cell = cell_identity(framework, profile, prepared)
    with tempfile.TemporaryDirectory(prefix="portbench-enumerate-") as folder:
        work = Path(folder) / "out"
        work.mkdir()
        if prepared.python is not None:
            listing_path = work / "enumeration.json"
            pinned = prepared.backend == "venv"
            _run_interpreter(
                prepared.python, framework, walk.args(framework, str(listing_path)), pinned
            )
            listing = read_bounded(listing_path, MAX_LISTING_BYTES)
        elif chosen is None:
            raise UsageError("--python names an interpreter, not a container; drop --backend")
        else:
            listing = _run_container(chosen, prepared, framework, work, walk)
        _write_with_provenance(listing, out, cell, prepared.description)
    return out


def _names(raw: Any, where: Path) -> tuple[EnumeratedName, ...]:
    if not isinstance(raw, list):
        raise ResultsError(
            f"{where}: 'names' must be a list; regenerate it with portbench enumerate"
        )
    names = []
    for row in raw:
        if not isinstance(row, dict) or row.get("kind") not in KINDS or not row.get("name"):
            raise ResultsError(f"{where}: malformed name entry {row!r}; regenerate the file")
        module = row.get("module")
        names.append(
            EnumeratedName(
                name=str(row["name"]),
                kind=str(row["kind"]),
                module=module if isinstance(module, str) else None,
                aliases=tuple(str(a) for a in row.get("aliases", ())),
            )
        )
    return tuple(names)


def load_enumeration(path: Path) -> Enumeration:
    """Read and check an enumeration file; errors say which file and what to do."""
    try:
        data = path.read_bytes()
    except OSError:
        raise UsageError(
            f"{path}: cannot read the enumeration file; run portbench enumerate first"
        ) from None
    try:
        # Enumerations are kept gzipped in tests/data/: read them as they are.
        text = gzip.decompress(data) if data[:2] == GZIP_MAGIC else data
        doc = json.loads(text)
    except (ValueError, OSError, EOFError):
        # A TOML manifest or a CSV passed by mistake: the user's file, not a damaged result.
        raise UsageError(
            f"{path}: not JSON, so not an enumeration file; pass the output of portbench enumerate"
        ) from None
    if not isinstance(doc, dict) or doc.get("kind") != "enumeration":
        raise UsageError(
            f"{path}: not an enumeration file (kind {doc.get('kind')!r})"
            if isinstance(doc, dict)
            else f"{path}: not an enumeration file"
        )
    if doc.get("schema") != ENUMERATION_SCHEMA:
        raise ResultsError(
            f"{path}: enumeration schema {doc.get('schema')!r} is not {ENUMERATION_SCHEMA}; "
            "upgrade portbench or regenerate the file"
        )
    return Enumeration(
        path=path,
        sha256=hashlib.sha256(data).hexdigest(),
        framework=str(doc.get("framework", "")),
        version=str(doc.get("version", "")),
        python=str(doc.get("python", "")),
        names=_names(doc.get("names"), path),
        provenance=dict(doc["provenance"]) if isinstance(doc.get("provenance"), dict) else {},
    )
