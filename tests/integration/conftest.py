"""Integration tests against a real Docker engine; skipped, with the reason, when none answers.

With ``PORTBENCH_REQUIRE_DOCKER=1`` (``.ci/run`` sets it) a missing engine or base image is a
failure instead, so a green CI always means these tests ran. A test removes only images this
session created (``image_ledger``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, NoReturn

import pytest
from conftest import jax_cpu_bench, project_with_cases

from integration.image_ledger import ImageLedger

__all__ = ["docker_bench", "portbench", "project_with_cases"]

pytestmark = pytest.mark.docker


def _unavailable(reason: str) -> NoReturn:
    """Skip, saying why; or fail where the Docker tests must run (CI)."""
    if os.environ.get("PORTBENCH_REQUIRE_DOCKER") == "1":
        pytest.fail(f"{reason} (PORTBENCH_REQUIRE_DOCKER=1: the Docker tests must run here)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def image_ledger() -> ImageLedger:
    """The images this session created; the only ones a test may remove."""
    return ImageLedger()


@pytest.fixture(scope="session")
def docker_client() -> Any:
    from portbench.errors import BackendUnavailable
    from portbench.images.build import docker_client as connect

    try:
        return connect()
    except BackendUnavailable as exc:
        _unavailable(str(exc))


@pytest.fixture(scope="session")
def bookworm_base(docker_client: Any, image_ledger: ImageLedger) -> str:
    """The local debootstrap base (made once; minutes on a fresh machine)."""
    from portbench.images.base import make_base_image

    try:
        image_id, seconds = make_base_image("bookworm", docker_client, lambda line: None)
    except Exception as exc:  # debootstrap missing or no Debian mirror: say so
        _unavailable(f"cannot make the bookworm base image: {exc}")
    if seconds > 0:  # 0.0: it was here already
        image_ledger.created(image_id)
    return image_id


@pytest.fixture(scope="session")
def jax_image(docker_client: Any, bookworm_base: str, image_ledger: ImageLedger) -> str:
    from portbench.images.build import ensure_image, image_spec

    spec = image_spec("jax", "cpu", "current", base="portbench/base:bookworm")
    image = ensure_image(spec, lambda line: None, client=docker_client)
    if image.built:
        image_ledger.created(image.id)
    return image.tag


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
