"""The census lock, layered on a cell's environment without changing that environment.

The operator databases import test-only packages the profiles' locks lack (PyTorch's
``expecttest``; JAX's harnesses ``absl``). ``images/locks/census/<framework>.txt`` pins them
(with hashes). They are added beside the cell's environment, never into it:

- an interpreter (host, venv): installed once with ``pip --target`` into
  ``.portbench/census/<key>/``, a folder the worker appends to its path, so the cell's own
  packages always win and the venv's identity is untouched;
- a container: an image derived ``FROM`` the cell's image by id, tagged by that id and the
  census lock's hash, so the cell's image (and its tag) stays what it was.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console

from ..backends.base import PreparedEnvironment
from ..errors import EnvironmentBuildError, UsageError
from ..paths import images_dir, state_dir

__all__ = ["census_environment", "census_lock"]

LABEL = "org.portbench.census"


def census_lock(framework: str) -> Path:
    """The census lock of ``framework``; a framework without one is one sentence."""
    path = images_dir() / "locks" / "census" / f"{framework}.txt"
    if not path.is_file():
        raise UsageError(
            f"{path} is missing: the census of {framework} needs its test-only packages "
            "pinned there (name==version --hash=sha256:...)"
        )
    return path


def _key(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:12]


def _overlay(framework: str, console: Console) -> Path:
    """The census lock's packages in a folder of their own (pure-Python wheels only)."""
    lock = census_lock(framework)
    data = lock.read_bytes()
    folder = state_dir() / "census" / f"{framework}-{_key(data)}"
    if folder.is_dir():
        return folder
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    console.print(f"[dim]installing the census lock {lock.name} into {folder}[/]")
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        "--require-hashes",
        "--only-binary=:all:",
        "--target",
        str(partial),
        "-r",
        str(lock),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        raise EnvironmentBuildError(
            f"pip could not install the census lock {lock} (exit {done.returncode}); check "
            "the network or pass a wheelhouse with PIP_FIND_LINKS",
            log=done.stderr,
        )
    # Built aside and renamed into place: a folder that exists is complete.
    os.replace(partial, folder)
    return folder


def _dockerfile() -> bytes:
    # The wheels come in the build context: cell builds may have no network (air-gapped
    # machines build from a wheelhouse), and pip checks them against the lock's hashes.
    return (
        b"ARG CELL_IMAGE\n"
        b"FROM ${CELL_IMAGE}\n"
        b"USER root\n"
        b"COPY census/ /etc/portbench/census/\n"
        b"RUN /opt/cell/bin/pip install --no-cache-dir --no-deps --require-hashes --no-index "
        b"--disable-pip-version-check --find-links /etc/portbench/census/wheels "
        b"-r /etc/portbench/census/lock.txt\n"
        b"USER 10001:10001\n"
    )


def _wheels(lock: Path, into: Path) -> None:
    """Download the lock's wheels on the host (checked against their hashes)."""
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        "--require-hashes",
        "--only-binary=:all:",
        "-d",
        str(into),
        "-r",
        str(lock),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise EnvironmentBuildError(
            f"pip could not download the census lock {lock} (exit {done.returncode}); check "
            "the network or pass a wheelhouse with PIP_FIND_LINKS",
            log=done.stderr,
        )


def _context(lock: Path) -> bytes:
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory(prefix="portbench-census-wheels-") as folder:
        _wheels(lock, Path(folder))
        with tarfile.open(fileobj=buffer, mode="w") as tar:
            for name, data in (
                ("Dockerfile", _dockerfile()),
                ("census/lock.txt", lock.read_bytes()),
            ):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            for wheel in sorted(Path(folder).glob("*.whl")):
                tar.add(wheel, arcname=f"census/wheels/{wheel.name}")
    return buffer.getvalue()


def _derived_image(
    prepared: PreparedEnvironment, framework: str, console: Console
) -> dict[str, Any]:
    """The census image derived from the cell's image (built once, then reused by tag)."""
    from docker.errors import APIError, BuildError, ImageNotFound

    from ..images.build import docker_client

    assert prepared.image is not None
    lock_path = census_lock(framework)
    cell_id = str(prepared.image["id"])
    key = _key(cell_id.encode(), _dockerfile(), lock_path.read_bytes())
    tag = f"portbench/census-{framework}:{key}"
    client = docker_client()
    try:
        image = client.images.get(tag)
    except ImageNotFound:
        console.print(f"[dim]building the census image {tag} FROM {prepared.image['tag']}[/]")
        try:
            image, _ = client.images.build(
                fileobj=io.BytesIO(_context(lock_path)),
                custom_context=True,
                tag=tag,
                buildargs={"CELL_IMAGE": cell_id},
                labels={f"{LABEL}.cell-image": cell_id, f"{LABEL}.lock-key": key},
                network_mode="host",
                rm=True,
                forcerm=True,
            )
        except BuildError as exc:
            lines = [str(c.get("stream") or c.get("error") or "") for c in exc.build_log]
            raise EnvironmentBuildError(
                f"the census image {tag} could not be built FROM {prepared.image['tag']}",
                log="".join(lines),
            ) from None
        except APIError as exc:
            raise EnvironmentBuildError(
                f"the Docker engine refused the census image {tag}: {exc.explanation}"
            ) from None
    if image.labels.get(f"{LABEL}.cell-image") != cell_id:
        raise EnvironmentBuildError(
            f"{tag} is not derived from {prepared.image['tag']}; remove that tag and run again"
        )
    return {**prepared.image, "id": str(image.id), "tag": tag, "cell_image": prepared.image}


def census_environment(
    prepared: PreparedEnvironment, framework: str, console: Console
) -> tuple[PreparedEnvironment, tuple[str, ...]]:
    """The cell's environment with the census lock layered on, and the folders (if any)
    the worker must append to its path."""
    if prepared.image is not None:
        image = _derived_image(prepared, framework, console)
        return replace(prepared, image=image, description=f"container {image['tag']}"), ()
    return prepared, (str(_overlay(framework, console)),)
