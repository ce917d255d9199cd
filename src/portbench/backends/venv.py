"""The venv backend: a pinned profile installed from its lock into a virtualenv.

The same lock the Docker image installs from; the venv is named by the lock's hash and
reused only when its stored info matches, so an unchanged profile is never reinstalled.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from ..errors import BackendUnavailable, EnvironmentBuildError
from ..paths import runners_dir, state_dir
from ..results import CellWriter
from .base import CellLaunch, PreparedEnvironment
from .launch import run_tool_process, stream_supervisor

__all__ = ["VenvBackend", "find_python", "missing_wheel_sentence"]

_NO_DIST = re.compile(r"No matching distribution found for ([A-Za-z0-9_.\-]+==[^\s;]+)")


def find_python(version: str) -> str | None:
    """An interpreter of ``version`` (e.g. ``3.9``): this one, PATH, or pyenv's versions."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return sys.executable
    on_path = shutil.which(f"python{version}")
    if on_path:
        probe = subprocess.run(
            [on_path, "-c", "import sys; print(sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode == 0:
            return on_path
    candidates = sorted(
        (Path.home() / ".pyenv" / "versions").glob(f"{version}.*/bin/python{version}")
    )
    return str(candidates[-1]) if candidates else None


def missing_wheel_sentence(pip_output: str, profile: str) -> str | None:
    """One sentence for a pin that no reachable index serves, or None if that is not the cause."""
    match = _NO_DIST.search(pip_output)
    if match is None:
        return None
    pin = match.group(1)
    nearest = (
        " or run --profile paper-nearest, which replaces unserved wheels"
        if profile == "paper"
        else ""
    )
    return (
        f"{pin} is served by no index pip can reach; put the wheel in a wheelhouse and pass "
        f"--find-links DIR (or point pip at the framework's own release index){nearest}"
    )


class VenvBackend:
    name = "venv"
    isolation = (
        "none from the case: it runs as your user, so it can read and write what you can, "
        "the cell's records included; portbench bounds its output, kills what it leaves "
        "running and checks what it reports, but only the docker backend seals a cell"
    )

    def __init__(self, find_links: Path | None = None, console: Console | None = None) -> None:
        self.find_links = find_links
        self.console = console or Console(stderr=True, highlight=False)

    def available(self) -> tuple[bool, str]:
        return True, ""

    def prepare(self, framework: str, flavor: str, profile: str) -> PreparedEnvironment:
        from ..images.locks import load_lock, lock_path

        lock = load_lock(lock_path(profile, framework, flavor))
        python = find_python(lock.python)
        if python is None:
            raise BackendUnavailable(
                f"profile '{profile}' needs Python {lock.python}, which is not on PATH or under "
                "~/.pyenv; install it (e.g. `pyenv install "
                f"{lock.python}`) or use the docker backend"
            )
        env_dir = state_dir() / "venvs" / f"{profile}-{framework}-{flavor}-{lock.sha256[:12]}"
        info_path = env_dir / "portbench-env.json"
        expected = {"lock_sha256": lock.sha256, "python": lock.python, "framework": framework}
        if info_path.exists() and json.loads(info_path.read_text()) == expected:
            return self._prepared(env_dir, profile, lock.verified)
        self._build(env_dir, python, lock, profile)
        info_path.write_text(json.dumps(expected))
        return self._prepared(env_dir, profile, lock.verified)

    def _prepared(self, env_dir: Path, profile: str, verified: bool) -> PreparedEnvironment:
        note = "" if verified else ", unverified lock"
        return PreparedEnvironment(
            backend=self.name,
            description=f"venv {env_dir.name} (profile {profile}{note})",
            python=str(env_dir / "bin" / "python"),
            installer="pip",
        )

    def _build(self, env_dir: Path, python: str, lock: object, profile: str) -> None:
        from ..images.locks import Lock

        assert isinstance(lock, Lock)
        partial = env_dir.with_name(env_dir.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.parent.mkdir(parents=True, exist_ok=True)
        steps = [[python, "-m", "venv", str(partial)]]
        install = [
            str(partial / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-r",
            str(lock.path),
        ]
        if lock.fully_hashed:
            install.insert(-2, "--require-hashes")
        if self.find_links is not None:
            install[-2:-2] = ["--find-links", str(self.find_links)]
        steps.append(install)
        for step in steps:
            proc = subprocess.run(step, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                shutil.rmtree(partial, ignore_errors=True)
                output = proc.stdout + proc.stderr
                sentence = missing_wheel_sentence(output, profile) or (
                    f"installing {lock.path.name} into a venv failed (exit {proc.returncode}); "
                    f"the last lines of pip's output follow"
                )
                raise EnvironmentBuildError(sentence, log=output[-4000:])
        # Renamed into place only when complete: a half-built venv is never reused.
        shutil.rmtree(env_dir, ignore_errors=True)
        partial.rename(env_dir)

    def run_cell(
        self, prepared: PreparedEnvironment, launch: CellLaunch, writer: CellWriter
    ) -> int:
        assert prepared.python is not None
        return stream_supervisor(prepared.python, str(runners_dir()), True, launch, writer)

    def run_tool(self, prepared: PreparedEnvironment, args: list[str], out_dir: Path) -> int:
        assert prepared.python is not None
        return run_tool_process(prepared.python, args, pinned=True)
