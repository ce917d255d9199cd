"""A sweep's run directory: what it was asked to run (``sweep.json``) and what each release
came to (``sweep.jsonl``), so a sweep stopped anywhere resumes without redoing a cell.

``sweep.json`` is written once, when the sweep starts: the framework, accelerator, the
releases in order (the default list is read from the index then, and kept, so a resumed
sweep runs the same list), and how each cell runs. ``sweep.jsonl`` gets one line per
release once it is settled: ``landed`` (its cell completed), ``skipped`` (no index serves it
or it does not resolve: one sentence, never retried) or ``failed`` (stopped early: resumed
next time). The cells themselves are the usual cell directories beside them; a cell that
was running when the sweep was killed has its plan and records there, and is resumed.

Both files are read bounded, as every file of a run directory is; a damaged line of
``sweep.jsonl`` is skipped (its release is then looked at again, never lost).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..releases.spec import Release, parse_release
from ..results.safeio import append_line, open_nofollow, read_bounded, write_new

__all__ = [
    "LANDED",
    "STATE_FILE",
    "SWEEP_FILE",
    "Settled",
    "SweepPlan",
    "read_settled",
    "read_sweep_plan",
    "record_settled",
    "write_sweep_plan",
]

SWEEP_FILE = "sweep.json"
STATE_FILE = "sweep.jsonl"
SWEEP_SCHEMA = 1
LANDED, SKIPPED, FAILED = "landed", "skipped", "failed"
STATUSES = (LANDED, SKIPPED, FAILED)
MAX_SWEEP_BYTES = 1_000_000
MAX_STATE_BYTES = 10_000_000
MAX_TEXT = 2000


@dataclass(frozen=True)
class SweepPlan:
    framework: str
    accelerator: str
    releases: tuple[Release, ...]
    kind: str = "bench"
    """``bench`` (the manifest's cases) or ``census`` (the framework's own database)."""
    timing: bool = True
    functions: tuple[str, ...] = ()
    keep_images: bool = False
    backend: str = "auto"

    def to_json(self) -> dict[str, object]:
        return {
            "schema": SWEEP_SCHEMA,
            "framework": self.framework,
            "accelerator": self.accelerator,
            "releases": [r.version for r in self.releases],
            "kind": self.kind,
            "timing": self.timing,
            "functions": list(self.functions),
            "keep_images": self.keep_images,
            "backend": self.backend,
        }


@dataclass(frozen=True)
class Settled:
    """One line of ``sweep.jsonl``: what a release came to."""

    release: str
    """``jax==0.6.2``."""
    status: str
    cell: str | None = None
    """The cell's folder name in the run directory."""
    reason: str | None = None
    wall_s: float | None = None
    image: dict[str, object] = field(default_factory=dict)
    """Docker: the image's tag, bytes, build seconds, and whether it was removed."""

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"release": self.release, "status": self.status}
        for key, value in (("cell", self.cell), ("reason", self.reason), ("wall_s", self.wall_s)):
            if value is not None:
                out[key] = value
        if self.image:
            out["image"] = self.image
        return out


def _text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_TEXT:
        raise UsageError(f"{where} is not a short text")
    return value


def read_sweep_plan(run_dir: Path) -> SweepPlan:
    """The sweep ``run_dir`` holds, or one sentence saying why it holds none."""
    path = run_dir / SWEEP_FILE
    if not path.is_file() or path.is_symlink():
        raise UsageError(
            f"{run_dir} holds no {SWEEP_FILE}; pass the run directory a `portbench sweep` made"
        )
    try:
        data = json.loads(read_bounded(path, MAX_SWEEP_BYTES))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path} cannot be read ({exc}); it is not a sweep's plan") from None
    if not isinstance(data, dict) or data.get("schema") != SWEEP_SCHEMA:
        raise UsageError(f"{path} is not a sweep plan of schema {SWEEP_SCHEMA}")
    framework = _text(data.get("framework"), f"{path}: framework")
    releases = data.get("releases")
    functions = data.get("functions", [])
    if not isinstance(releases, list) or not releases or not isinstance(functions, list):
        raise UsageError(f"{path}: 'releases' and 'functions' must be lists")
    kind = data.get("kind", "bench")
    if kind not in ("bench", "census"):
        raise UsageError(f"{path}: kind {str(kind)[:20]!r} is neither bench nor census")
    return SweepPlan(
        framework=framework,
        accelerator=_text(data.get("accelerator"), f"{path}: accelerator"),
        releases=tuple(parse_release(_text(v, f"{path}: a release"), framework) for v in releases),
        kind=kind,
        timing=data.get("timing") is not False,
        functions=tuple(_text(f, f"{path}: a function") for f in functions),
        keep_images=data.get("keep_images") is True,
        backend=_text(data.get("backend", "auto"), f"{path}: backend"),
    )


def write_sweep_plan(run_dir: Path, plan: SweepPlan) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    if not write_new(run_dir / SWEEP_FILE, plan.to_json()):
        raise UsageError(
            f"{run_dir} holds a sweep already; resume it with `portbench sweep --resume "
            f"{run_dir}`, or pass another --run-dir"
        )


def _settled(value: object) -> Settled | None:
    if not isinstance(value, dict):
        return None
    release, status = value.get("release"), value.get("status")
    if not isinstance(release, str) or status not in STATUSES:
        return None
    cell, reason, wall = value.get("cell"), value.get("reason"), value.get("wall_s")
    image = value.get("image")
    return Settled(
        release=release[:200],
        status=str(status),
        cell=cell[:200] if isinstance(cell, str) else None,
        reason=reason[:MAX_TEXT] if isinstance(reason, str) else None,
        wall_s=float(wall)
        if isinstance(wall, (int, float)) and not isinstance(wall, bool)
        else None,
        image=dict(image) if isinstance(image, dict) else {},
    )


def read_settled(run_dir: Path) -> dict[str, Settled]:
    """Each release's last settled line (``jax==0.6.2`` -> line); damaged lines skipped."""
    path = run_dir / STATE_FILE
    if not path.exists():
        return {}
    found: dict[str, Settled] = {}
    for line in read_bounded(path, MAX_STATE_BYTES).splitlines():
        try:
            settled = _settled(json.loads(line))
        except ValueError:
            continue
        if settled is not None:
            found[settled.release] = settled
    return found


def record_settled(run_dir: Path, settled: Settled) -> None:
    """Append one line; written whole or not at all (an O_APPEND write of one line)."""
    path = run_dir / STATE_FILE
    fd = open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        append_line(fd, settled.to_json(), path)
    finally:
        os.close(fd)
