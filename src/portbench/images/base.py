"""Local base images without a registry: debootstrap a Debian root and import it.

bullseye gives Python 3.9 (the paper profiles), bookworm Python 3.11 (current), trixie
Python 3.13 (the newest framework releases, reached as release cells: JAX 0.11 and later need
Python 3.12 or newer).
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import EnvironmentBuildError, UsageError

__all__ = ["GLIBC", "SUITES", "base_image_name", "make_base_image"]

SUITES = {"bullseye": "3.9", "bookworm": "3.11", "trixie": "3.13"}
#: Each suite's glibc (major, minor): the newest manylinux wheel its Python can load.
GLIBC = {"bullseye": (2, 31), "bookworm": (2, 36), "trixie": (2, 41)}
PACKAGES = "python3,python3-venv,python3-pip,ca-certificates,passwd"


def base_image_name(suite: str) -> str:
    return f"portbench/base:{suite}"


def make_base_image(
    suite: str, client: Any, note: Callable[[str], None], rebuild: bool = False
) -> tuple[str, float]:
    """Make ``portbench/base:<suite>`` unless it exists; (image id, seconds spent)."""
    from docker.errors import ImageNotFound

    if suite not in SUITES:
        raise UsageError(f"unknown suite '{suite}' (known: {', '.join(SUITES)})")
    name = base_image_name(suite)
    started = time.monotonic()
    if not rebuild:
        try:
            return str(client.images.get(name).id), 0.0
        except ImageNotFound:
            pass
    if shutil.which("debootstrap") is None:
        raise EnvironmentBuildError(
            "debootstrap is not installed; apt-get install debootstrap (Debian's package)"
        )
    with tempfile.TemporaryDirectory(prefix=f"portbench-{suite}-") as tmp:
        root = Path(tmp) / "root"
        note(f"debootstrap {suite} (minbase + Python {SUITES[suite]}) into {root}")
        proc = subprocess.run(
            ["debootstrap", "--variant=minbase", f"--include={PACKAGES}", suite, str(root)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or ["no output"]
            raise EnvironmentBuildError(
                f"debootstrap {suite} failed: {tail[0]}", log=proc.stdout + proc.stderr
            )
        archive = Path(tmp) / "root.tar"
        with tarfile.open(archive, "w") as tar:
            tar.add(root, arcname=".")
        repository, tag = name.split(":")
        client.api.import_image_from_file(str(archive), repository=repository, tag=tag)
    return str(client.images.get(name).id), time.monotonic() - started
