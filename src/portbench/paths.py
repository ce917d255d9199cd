"""Where portbench's data lives: a source checkout's top folder, or PORTBENCH_HOME."""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
from pathlib import Path

import portbench_runner

__all__ = ["images_dir", "manifests_dir", "project_root", "results_dir", "runners_dir", "state_dir"]


def project_root() -> Path:
    """The folder holding manifests/, runners/ and images/ (PORTBENCH_HOME overrides)."""
    override = os.environ.get("PORTBENCH_HOME")
    if override:
        return Path(override).resolve()
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "runners" / "portbench_runner").is_dir() and (parent / "manifests").is_dir():
            return parent
    return Path.cwd()


def manifests_dir() -> Path:
    return project_root() / "manifests"


def _runner_package() -> Path:
    return Path(portbench_runner.__file__).resolve().parent


def _holds_only_the_runner(folder: Path) -> bool:
    ignored = ("portbench_runner", "__pycache__")
    return all(
        p.name in ignored or p.name.startswith(".") or p.suffix in (".egg-info", ".dist-info")
        for p in folder.iterdir()
    )


@functools.cache
def _staged_runner(package: Path) -> Path:
    """A folder holding only a copy of ``package`` (named by its content), for an installed
    runner whose folder is a site-packages that a cell must not see."""
    digest = hashlib.sha256()
    files = sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    for path in files:
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    folder = state_dir() / "runner" / digest.hexdigest()[:16]
    if not (folder / "portbench_runner").is_dir():
        staging = folder.with_name(folder.name + f".{os.getpid()}")
        shutil.copytree(
            package, staging / "portbench_runner", ignore=shutil.ignore_patterns("__pycache__")
        )
        try:
            staging.rename(folder)
        except OSError:  # another process staged it first
            shutil.rmtree(staging, ignore_errors=True)
    return folder


def runners_dir() -> Path:
    """The folder whose ``portbench_runner`` the cells run: the very package this host
    imports (so both sides share one contract), alone in its folder."""
    package = _runner_package()
    if _holds_only_the_runner(package.parent):
        return package.parent
    return _staged_runner(package)


def images_dir() -> Path:
    return project_root() / "images"


def results_dir() -> Path:
    return project_root() / "results"


def state_dir() -> Path:
    """Built environments (venvs) and caches; git-ignored."""
    return project_root() / ".portbench"
