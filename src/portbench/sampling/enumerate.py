"""Host side of ``portbench enumerate``: run the in-cell walker, read what it wrote."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from ..errors import CellFailed, ResultsError, UsageError
from ..paths import runners_dir

__all__ = [
    "ENUMERATION_SCHEMA",
    "EnumeratedName",
    "Enumeration",
    "cell_python",
    "load_enumeration",
    "run_enumeration",
]

#: Schema history: 1 — first version (names with kind, module, aliases; rules; provenance).
ENUMERATION_SCHEMA = 1
KINDS = ("function", "class", "method")


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


def cell_python(framework: str, profile: str, python: str | None) -> str:
    """The interpreter the walker runs with when no backend is involved: ``--python`` or,
    for the host profile, this one."""
    del framework, profile
    return python or sys.executable


def _walker_args(framework: str, out: str, members: bool, import_submodules: bool) -> list[str]:
    args = ["enumerate", "--framework", framework, "--out", out]
    args += ["--members"] if members else []
    return args + (["--import-submodules"] if import_submodules else [])


def _run_interpreter(interpreter: str, framework: str, args: list[str]) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(runners_dir()), *filter(None, [env.get("PYTHONPATH")])]
    )
    try:
        done = subprocess.run(
            [interpreter, "-m", "portbench_runner", *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        raise UsageError(
            f"cannot run {interpreter} ({exc.strerror}); pass a working --python"
        ) from None
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise CellFailed(
            f"enumerating {framework} with {interpreter} failed: {tail}",
            exit_status=done.returncode,
            stderr_tail=done.stderr[-4000:],
        )


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
) -> Path:
    """Run the walker (``python -m portbench_runner enumerate``) in the cell of
    (framework, profile): its venv or container, as ``bench`` would pick it (``--backend``),
    or the interpreter given by ``--python`` / the host profile's. Returns ``out``."""
    if out.exists():
        raise UsageError(f"{out} exists; choose a new --out file (nothing is overwritten)")
    if python is not None or profile == "host":
        interpreter = cell_python(framework, profile, python)
        _run_interpreter(
            interpreter, framework, _walker_args(framework, str(out), members, import_submodules)
        )
        return out
    from ..cellrun import BuildOptions, choose_backend

    console = console or Console(stderr=True)
    chosen = choose_backend(backend, profile, console, build=BuildOptions(base=base))
    # The public API does not depend on the accelerator: the CPU image of the profile.
    prepared = chosen.prepare(framework, "cpu", profile)
    if prepared.python is not None:
        args = _walker_args(framework, str(out.resolve()), members, import_submodules)
        _run_interpreter(prepared.python, framework, args)
        return out
    run_tool = getattr(chosen, "run_tool", None)
    if run_tool is None:
        raise UsageError(f"the {chosen.name} backend cannot run the walker; use --backend venv")
    with tempfile.TemporaryDirectory(prefix="portbench-enumerate-") as folder:
        work = Path(folder)
        args = _walker_args(
            framework, "/portbench/run/enumeration.json", members, import_submodules
        )
        status = run_tool(prepared, args, work)
        produced = work / "enumeration.json"
        if status != 0 or not produced.exists():
            log = work / "logs" / "container.log"
            tail = (
                (log.read_text(errors="replace").strip().splitlines() or ["(no output)"])[-1]
                if log.exists()
                else "(no log)"
            )
            raise CellFailed(
                f"enumerating {framework} in {prepared.description} failed: {tail}",
                exit_status=status,
            )
        shutil.copyfile(produced, out)
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
        doc = json.loads(data)
    except ValueError:
        raise ResultsError(f"{path}: not JSON; regenerate it with portbench enumerate") from None
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
    )
