"""An image saved with its lock can be loaded back after it is gone; prune spares live images."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from integration.conftest import portbench

pytestmark = pytest.mark.docker


def test_export_then_import_restores_the_image(
    jax_image: str, docker_client: Any, tmp_path: Path
) -> None:
    archive = tmp_path / "jax-current.tar"
    args = (
        "--framework",
        "jax",
        "--accelerator",
        "cpu",
        "--profile",
        "current",
        "--base",
        "portbench/base:bookworm",
    )
    exported = portbench("images", "export", *args, "--out", str(archive))
    assert exported.returncode == 0, exported.stderr
    image_id = docker_client.images.get(jax_image).id
    docker_client.images.remove(jax_image, force=True)
    imported = portbench("images", "import", str(archive))
    assert imported.returncode == 0, imported.stderr
    assert docker_client.images.get(jax_image).id == image_id
    damaged = tmp_path / "damaged.tar"
    damaged.write_bytes(b"not a tar")
    refused = portbench("images", "import", str(damaged))
    assert refused.returncode != 0
    assert "is not an archive made by `portbench images export`" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_prune_keeps_images_whose_lock_is_live(jax_image: str) -> None:
    proc = portbench("images", "prune", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert jax_image not in proc.stdout
