"""Integration tests against a real Docker engine; skipped, with the reason, when none answers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import jax_cpu_bench, project_with_cases

__all__ = ["docker_bench", "portbench", "project_with_cases"]

pytestmark = pytest.mark.docker


@pytest.fixture(scope="session")
def docker_client() -> Any:
    from portbench.errors import BackendUnavailable
    from portbench.images.build import docker_client as connect

    try:
        return connect()
    except BackendUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def bookworm_base(docker_client: Any) -> str:
    """The local debootstrap base (made once; minutes on a fresh machine)."""
    from portbench.images.base import make_base_image

    try:
        image_id, _ = make_base_image("bookworm", docker_client, lambda line: None)
    except Exception as exc:  # debootstrap missing or no Debian mirror: say so
        pytest.skip(f"cannot make the bookworm base image: {exc}")
    return image_id


@pytest.fixture(scope="session")
def jax_image(docker_client: Any, bookworm_base: str) -> str:
    from portbench.images.build import ensure_image, image_spec

    spec = image_spec("jax", "cpu", "current", base="portbench/base:bookworm")
    return ensure_image(spec, lambda line: None, client=docker_client).tag


def portbench(
    *args: str, home: Path | None = None, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if home is not None:
        env["PORTBENCH_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "portbench.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def docker_bench(home: Path, run_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """A JAX cpu cell of ``home``'s manifest, in a container, into ``run_dir``."""
    return portbench(
        *jax_cpu_bench("--backend", "docker", "--run-dir", str(run_dir), *extra)[3:], home=home
    )
