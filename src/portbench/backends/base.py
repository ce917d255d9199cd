"""The backend protocol and what a prepared environment tells the host."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..paths import runners_dir

__all__ = ["Backend", "PreparedEnvironment", "run_supervisor_process"]


@dataclass(frozen=True)
class PreparedEnvironment:
    """A cell's environment, ready to run: how to reach its Python and what it is."""

    backend: str
    description: str
    python: str | None = None
    """The interpreter (venv, host); None for containers."""
    image: dict[str, Any] | None = None
    """``{"id": ..., "tag": ...}`` for docker; recorded in the plan and env.json."""
    manifest_root: str | None = None
    """The manifest folder as the cell sees it (differs inside a container)."""


class Backend(Protocol):
    name: str

    def available(self) -> tuple[bool, str]:
        """Whether this backend can run here, and why not in one sentence."""

    def prepare(self, framework: str, flavor: str, profile: str) -> PreparedEnvironment:
        """Build or reuse the environment of a framework x flavor x profile."""

    def run(self, prepared: PreparedEnvironment, plan_path: Path, run_dir: Path) -> int:
        """Run the cell's supervisor to completion; its exit status."""


def run_supervisor_process(python: str, plan_path: Path, run_dir: Path) -> int:
    """Start the in-cell supervisor with ``python`` and wait for it; its exit status.

    Its stdout (one line per case) and stderr go to logs/supervisor.log; the host shows
    progress by reading results.jsonl, which works the same for every backend.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(runners_dir()), env.get("PYTHONPATH", "")) if p
    )
    env["PYTHONUNBUFFERED"] = "1"
    (run_dir / "logs").mkdir(parents=True, exist_ok=True)
    with open(run_dir / "logs" / "supervisor.log", "ab") as log:
        proc = subprocess.Popen(
            [
                python,
                "-m",
                "portbench_runner",
                "supervise",
                "--plan",
                str(plan_path),
                "--run-dir",
                str(run_dir),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )
        try:
            return proc.wait()
        except KeyboardInterrupt:
            # The supervisor records nothing for the in-flight case; the run resumes later.
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
            raise


def current_python() -> str:
    return sys.executable
