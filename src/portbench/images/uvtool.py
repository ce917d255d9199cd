"""The uv binary that resolves locks: the one the ``uv`` package ships (a dependency of
portbench), else one on PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping

from ..errors import EnvironmentBuildError

__all__ = ["find_uv", "run_uv", "uv_reason"]

#: How long one resolution may take (metadata of a few dozen packages, fetched once).
UV_TIMEOUT_S = 600


def find_uv() -> str:
    try:
        from uv import find_uv_bin

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        pass
    found = shutil.which("uv")
    if found is None:
        raise EnvironmentBuildError(
            "resolving locks needs uv; pip install uv (or pip install -e .)"
        )
    return found


def run_uv(
    args: list[str], env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``uv ARGS``, its output captured, ``env`` added to this process's variables (a macOS
    lock's ``MACOSX_DEPLOYMENT_TARGET``); a hung resolution is one sentence."""
    try:
        return subprocess.run(
            [find_uv(), *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=UV_TIMEOUT_S,
            env={**os.environ, **env} if env else None,
        )
    except subprocess.TimeoutExpired:
        raise EnvironmentBuildError(
            f"uv {' '.join(args[:2])} did not finish within {UV_TIMEOUT_S} s; check the network"
        ) from None


def uv_reason(stderr: str) -> str:
    """The line of uv's error that says why (its "Because ..." line, else its last line)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if "Because " in line:
            return line[line.index("Because ") :][:400]
    for line in lines:
        if line.startswith(("error:", "cause:")) and "No solution found" not in line:
            return line[:400]
    return lines[-1][:400] if lines else "no output"
