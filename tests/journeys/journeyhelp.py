"""A portbench home with case files of the test's own, and the command line to run in it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, with_default_sigint


def make_home(root: Path, cases: str, framework: str = "jax", function: str = "demo.cases") -> Path:
    """``root/home``: the real runner and accelerator table, and a ``framework`` manifest of
    one function whose case file is ``cases``."""
    home = root / "home"
    (home / "manifests" / framework / "cases").mkdir(parents=True)
    for name in ("runners", "paper", "images"):
        (home / name).symlink_to(ROOT / name)
    (home / "manifests" / framework / "cases" / "demo.py").write_text(cases)
    (home / "manifests" / framework / "manifest.toml").write_text(
        f'schema = 1\nframework = "{framework}"\n[[function]]\nfunction = "{function}"\n'
        'study_test_file = "demo_test.py"\nstratum = "1"\ncase_file = "cases/demo.py"\n'
    )
    return home


def portbench_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "portbench.cli", *args]


def environment(home: Path, **extra: str) -> dict[str, str]:
    src = str(ROOT / "src")
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PORTBENCH_HOME": str(home), "PYTHONPATH": path, **extra}


def run(
    home: Path, *args: str, cwd: Path | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        portbench_argv(*args),
        env=environment(home),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def start(
    home: Path, *args: str, cwd: Path | None = None, new_session: bool = False
) -> subprocess.Popen[str]:
    """The command in the background, SIGINT at its default disposition."""
    return subprocess.Popen(
        with_default_sigint(portbench_argv(*args)),
        env=environment(home),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=new_session,
    )
