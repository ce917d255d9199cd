"""Where portbench's data lives: a source checkout's top folder, or PORTBENCH_HOME."""

from __future__ import annotations

import os
from pathlib import Path

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


def runners_dir() -> Path:
    return project_root() / "runners"


def images_dir() -> Path:
    return project_root() / "images"


def results_dir() -> Path:
    return project_root() / "results"


def state_dir() -> Path:
    """Built environments (venvs) and caches; git-ignored."""
    return project_root() / ".portbench"
