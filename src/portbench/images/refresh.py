"""``portbench images refresh``: move ``current``'s locks to the newest releases that install
on its Python (3.11), so README's commands keep working on a machine with only Python 3.11.

For each resolved (verified) lock of ``current``: the index's newest release of the
framework with a wheel for CPython 3.11 on this architecture (for JAX, the jaxlib of that
version), resolved with uv as ``portbench images lock`` resolves it; if it does not
resolve, the next older release, down to the version pinned now. A newer release that needs
a newer Python (JAX 0.11 and later) is reached as a release cell (``--release``).

torch's CPU lock pins ``torch==V+cpu``, which only PyTorch's CPU index serves. Where that
index answers, the newest release is resolved from it (uv's ``--torch-backend cpu``); where
it does not (the development machine, CI), the newest ``+cpu`` wheel of the lock's local
wheelhouse is the most that can be verified, and the lock is not moved past it: a CUDA
build is never put in a CPU lock. Locks written from documented pins (TPU) are left as they
are. A lock that follows another flavor's (``jax-rocm`` and ``torch-mps`` follow the CPU
lock) moves to that lock's release only. The paper profiles are never touched.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from packaging.version import Version

from ..errors import EnvironmentBuildError, UsageError
from .lockgen import CURRENT, LOCK_INPUTS, PYTORCH_CPU_INDEX, current_version, write_lock
from .locks import load_lock, lock_path

__all__ = ["Refreshed", "refresh_current", "torch_cpu_choice"]

PYTHON = "3.11"
#: How many releases below the newest are tried before a lock is kept as it is.
MAX_TRIES = 4
_CPU_WHEEL = re.compile(r"^torch-(?P<version>[0-9.]+)\+cpu-cp311-")


@dataclass(frozen=True)
class Refreshed:
    name: str
    """``jax-cpu``."""
    before: str
    after: str
    """The framework version pinned after the refresh (== before when kept)."""
    changes: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    """(package, old version or None, new version or None) for every pin that moved."""
    note: str = ""
    written: bool = False

    def line(self) -> str:
        """One line for the terminal: the release moved (or kept) and every pin that moved."""
        head = (
            f"{self.before} -> {self.after}" if self.after != self.before else f"{self.after} kept"
        )
        moved = ", ".join(f"{n} {a or '-'} -> {b or '-'}" for n, a, b in self.changes)
        text = f"current/{self.name}: {head}" + (f"; pins moved: {moved}" if moved else "")
        return text + (f" ({self.note})" if self.note else "")


def _wheel_package(framework: str, package: str) -> str:
    return "jaxlib" if framework == "jax" else package


def _newest_first(framework: str, package: str, floor: str) -> list[str]:
    """Releases at or above ``floor`` with a CPython 3.11 wheel here, newest first."""
    from ..releases.index import fetch_project
    from ..releases.pythons import BASE_PYTHONS, wheel_fits

    base = next(b for b in BASE_PYTHONS if b.python == PYTHON)
    wheels = fetch_project(_wheel_package(framework, package))
    named = fetch_project(package)
    served = set(named.releases())
    found = [
        v
        for v in wheels.releases()
        if v in served
        and v >= Version(floor)
        and any(
            wheel_fits(f.filename, f.requires_python, base)
            for f in wheels.files_of(v)
            if f.is_wheel
        )
    ]
    return [str(v) for v in sorted(found, reverse=True)]


def _wheelhouse_cpu(find_links: str | None) -> list[str]:
    if not find_links or not Path(find_links).is_dir():
        return []
    found = [
        Version(m.group("version"))
        for m in (_CPU_WHEEL.match(p.name) for p in Path(find_links).glob("torch-*.whl"))
        if m
    ]
    return [str(v) for v in sorted(found, reverse=True)]


def torch_cpu_choice(
    index_answers: bool, newest: list[str], wheelhouse: list[str], find_links: str | None
) -> tuple[list[str], str | None, str]:
    """(releases to try, uv's --torch-backend, note) for torch's CPU lock: every newer
    release from PyTorch's CPU index where it answers, else only the wheelhouse's ``+cpu``
    wheels, saying how far that falls short of the newest release."""
    if index_answers:
        return newest, "cpu", ""
    note = (
        f"PyTorch's CPU index ({PYTORCH_CPU_INDEX}) does not answer from here; the newest "
        f"+cpu wheel in {find_links or 'no wheelhouse'} is {wheelhouse[0] if wheelhouse else 'none'}"
    )
    if newest and (not wheelhouse or Version(newest[0]) > Version(wheelhouse[0])):
        note += (
            f"; torch {newest[0]} is reached as a release cell (--release torch=={newest[0]}, "
            "PyPI's build)"
        )
    return wheelhouse, None, note


def _changes(old: dict[str, str], new: dict[str, str]) -> list[tuple[str, str | None, str | None]]:
    names = sorted(set(old) | set(new))
    return [(n, old.get(n), new.get(n)) for n in names if old.get(n) != new.get(n)]


def _refresh_one(
    framework: str, flavor: str, dry_run: bool, index_answers: Callable[[], bool]
) -> Refreshed:
    current = CURRENT[(framework, flavor)]
    name = f"{framework}-{flavor}"
    before = current_version(framework, flavor)
    path = lock_path("current", framework, flavor)
    old_pins = load_lock(path).pins if path.exists() else {}
    if not current.verified:
        return Refreshed(
            name, before, before, note="written from documented pins, not resolvable here: kept"
        )
    if current.follows:
        # The CPU lock's release (refreshed first: keys sort "cpu" before the device flavors).
        followed = current_version(framework, current.follows)
        newest = [followed] if Version(followed) >= Version(before) else []
        note = f"follows {framework}-{current.follows}"
    else:
        newest, note = _newest_first(framework, current.package, before), ""
    candidates, backend = newest, None
    if current.indexes and framework == "torch":
        wheelhouse = [
            v for v in _wheelhouse_cpu(current.find_links) if Version(v) >= Version(before)
        ]
        candidates, backend, note = torch_cpu_choice(
            index_answers(), newest, wheelhouse, current.find_links
        )
    base_input = LOCK_INPUTS[("current", framework, flavor)]
    why = ""
    for version in candidates[:MAX_TRIES]:
        spec = replace(
            base_input,
            requirements=current.requirements(version),
            source=current.source.format(version=version)
            + f"; refreshed to the newest release for Python {PYTHON} with `portbench images refresh`",
        )
        with tempfile.TemporaryDirectory(prefix="portbench-refresh-") as tmp:
            try:
                written = write_lock(
                    "current", framework, flavor, spec, Path(tmp) / path.name, backend
                )
            except EnvironmentBuildError as exc:
                why = str(exc)
                continue
            new_pins = load_lock(written).pins
            changes = _changes(old_pins, new_pins)
            if not dry_run and changes:
                path.write_text(written.read_text(encoding="utf-8"), encoding="utf-8")
        return Refreshed(
            name, before, version, changes, note, written=not dry_run and bool(changes)
        )
    if why:
        note = f"{note}; " if note else ""
        note += f"no newer release resolved ({why})"
    return Refreshed(name, before, before, note=note or "no release to move to")


def refresh_current(
    only: list[str], dry_run: bool, index_answers: Callable[[], bool] | None = None
) -> list[Refreshed]:
    """Refresh ``current``'s locks (``only``: names like ``jax-cpu``); what moved, per lock."""
    from ..releases.locking import pytorch_index_answers

    keys = [k for k in sorted(CURRENT) if not only or f"{k[0]}-{k[1]}" in only]
    if only and not keys:
        names = ", ".join(f"{f}-{fl}" for f, fl in sorted(CURRENT))
        raise UsageError(f"no current lock named {', '.join(only)} (known: {names})")
    answers = index_answers or pytorch_index_answers
    return [_refresh_one(framework, flavor, dry_run, answers) for framework, flavor in keys]
