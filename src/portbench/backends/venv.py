"""The venv backend: a pinned profile installed from its lock into a virtualenv.

The same lock the Docker image installs from; the venv is named by the lock's hash and
reused only when its stored info matches, so an unchanged profile is never reinstalled.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from ..errors import BackendUnavailable, EnvironmentBuildError, UsageError
from ..paths import runners_dir, state_dir
from ..results import CellWriter
from .base import CellLaunch, PreparedEnvironment
from .launch import run_tool_process, stream_supervisor

__all__ = ["VenvBackend", "find_python", "missing_wheel_sentence"]

_NO_DIST = re.compile(r"No matching distribution found for ([A-Za-z0-9_.\-]+==[^\s;]+)")
# uv says it its own way: "Because torch==2.13.0+cpu was not found in the package registry".
_NO_DIST_UV = re.compile(r"Because ([A-Za-z0-9_.\-]+==[^\s;]+) was not found")
INSTALLERS = ("auto", "uv", "pip")


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
    match = _NO_DIST.search(pip_output) or _NO_DIST_UV.search(pip_output)
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

    def __init__(
        self,
        find_links: Path | None = None,
        console: Console | None = None,
        installer: str | None = None,
    ) -> None:
        self.find_links = find_links
        self.console = console or Console(stderr=True, highlight=False)
        # uv where it is installed (it already writes the locks), pip otherwise;
        # PORTBENCH_INSTALLER=pip|uv forces one.
        self.installer = installer or os.environ.get("PORTBENCH_INSTALLER", "auto")
        if self.installer not in INSTALLERS:
            raise UsageError(
                f"unknown installer {self.installer!r} (known: {', '.join(INSTALLERS)}); "
                "set PORTBENCH_INSTALLER to one of them or unset it"
            )

    def available(self) -> tuple[bool, str]:
        return True, ""

    def prepare(self, framework: str, flavor: str, profile: str) -> PreparedEnvironment:
        from ..releases.cells import cell_lock

        lock = cell_lock(profile, framework, flavor, self.console.print)
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
        info = _read_info(info_path)
        if {k: info.get(k) for k in expected} == expected:
            return self._prepared(
                env_dir, profile, lock.verified, str(info.get("installer", "pip"))
            )
        installer = self.install(env_dir, python, lock, profile)
        info_path.write_text(json.dumps({**expected, "installer": installer}))
        return self._prepared(env_dir, profile, lock.verified, installer)

    def _prepared(
        self, env_dir: Path, profile: str, verified: bool, installer: str
    ) -> PreparedEnvironment:
        note = "" if verified else ", unverified lock"
        return PreparedEnvironment(
            backend=self.name,
            description=f"venv {env_dir.name} (profile {profile}{note}, built with {installer})",
            python=str(env_dir / "bin" / "python"),
            installer=installer,
        )

    def chosen_installer(self) -> str:
        if self.installer == "auto":
            return "uv" if shutil.which("uv") else "pip"
        if self.installer == "uv" and not shutil.which("uv"):
            raise BackendUnavailable(
                "PORTBENCH_INSTALLER=uv but uv is not on PATH; `pip install uv` or unset it"
            )
        return self.installer

    def install(self, env_dir: Path, python: str, lock: object, profile: str) -> str:
        """Build the venv with the chosen installer (uv, falling back to pip); which one did."""
        installer = self.chosen_installer()
        try:
            self.build(env_dir, python, lock, profile, installer)
        except EnvironmentBuildError as exc:
            if not (self.installer == "auto" and installer == "uv"):
                raise
            # uv refuses a whole install when one index does not answer, where pip warns and
            # takes the wheel from its configured wheelhouse: pip is the fallback.
            self.console.print(f"[dim]uv could not install it ({str(exc)[:120]}); trying pip[/]")
            installer = "pip"
            self.build(env_dir, python, lock, profile, installer)
        return installer

    def build(self, env_dir: Path, python: str, lock: object, profile: str, installer: str) -> None:
        """Install ``lock`` into a new venv at ``env_dir`` with ``installer``."""
        from ..images.install import install_parts
        from ..images.locks import Lock

        assert isinstance(lock, Lock)
        partial = env_dir.with_name(env_dir.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.parent.mkdir(parents=True, exist_ok=True)
        flags = ["--no-deps", *(["--require-hashes"] if lock.fully_hashed else [])]
        if self.find_links is not None:
            flags += ["--find-links", str(self.find_links)]
        venv_python = str(partial / "bin" / "python")
        # The lock as install steps (an index's packages from that index only, then PyPI);
        # the files live in the partial venv, removed with it on failure.
        parts_dir = partial / "portbench-requirements"
        if installer == "uv":
            uv = shutil.which("uv") or "uv"
            steps = [[uv, "venv", "--quiet", "--python", python, str(partial)]]
            install = [uv, "pip", "install", "--python", venv_python, *flags, "-r"]
        else:
            steps = [[python, "-m", "venv", str(partial)]]
            install = [venv_python, "-m", "pip", "install", *flags, "-r"]
        for part in install_parts(lock):
            steps.append([*install, str(parts_dir / f"{part.name}.txt")])
        for number, step in enumerate(steps):
            if number == 1:
                parts_dir.mkdir()
                for part in install_parts(lock):
                    (parts_dir / f"{part.name}.txt").write_text(part.requirements)
            proc = subprocess.run(step, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                shutil.rmtree(partial, ignore_errors=True)
                output = proc.stdout + proc.stderr
                missing = missing_wheel_sentence(output, profile)
                if missing:
                    # The sentence names the wheel and the fix: the log would only repeat it.
                    raise EnvironmentBuildError(missing)
                raise EnvironmentBuildError(
                    f"installing {lock.path.name} into a venv failed (exit {proc.returncode}); "
                    f"the last lines of {installer}'s output follow",
                    log=output[-4000:],
                )
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


def _read_info(path: Path) -> dict[str, object]:
    """A venv's stored facts; {} when missing or unreadable (then it is rebuilt)."""
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}
