"""The census lock, layered on a cell's environment without changing that environment.

The operator databases import test-only packages the profiles' locks lack (PyTorch's
``expecttest``, and under torch 1.12 ``yaml``; JAX's harnesses ``absl``). The census lock pins
them (with hashes): ``images/locks/census/<profile>/<framework>.txt`` where a profile needs its
own (a binary wheel is per Python: PyYAML under ``paper``), else
``images/locks/census/<framework>.txt``. They are added beside the cell's environment, never
into it:

- an interpreter (host, venv): installed once with ``pip --target`` into
  ``.portbench/census/<key>/``, a folder the worker appends to its path, so the cell's own
  packages always win and the venv's identity is untouched;
- a container: an image derived ``FROM`` the cell's image by id, tagged by that id and the
  census lock's hash, so the cell's image (and its tag) stays what it was; the packages go
  into ``/opt/portbench-census``, appended to the worker's path as on the host, so the cell's
  own packages (TensorFlow's absl-py) stay the ones its lock chose.
"""

from __future__ import annotations

import hashlib
import io
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from portbench_runner.contract import ImageRef

from ..backends.base import PreparedEnvironment
from ..errors import EnvironmentBuildError, UsageError
from ..paths import images_dir, state_dir

__all__ = ["census_environment", "census_lock"]

#: The census image labels' namespace (images/commands.py reads it for `images prune`).
LABEL = "org.portbench.census"
#: The census lock's packages in a census image: a folder the worker appends to its path.
IMAGE_SITE = "/opt/portbench-census"


def census_lock(framework: str, profile: str) -> Path:
    """The census lock of ``framework`` under ``profile``: the profile's own where it has one
    (its database imports more, or binary wheels for its Python), else the framework's
    shared one; a framework without either is one sentence."""
    folder = images_dir() / "locks" / "census"
    own = folder / profile / f"{framework}.txt"
    if own.is_file():
        return own
    path = folder / f"{framework}.txt"
    if not path.is_file():
        raise UsageError(
            f"{path} is missing: the census of {framework} needs its test-only packages "
            f"pinned there or in {own} (name==version --hash=sha256:...)"
        )
    return path


#: Docker's architecture names -> the manylinux platform tag of that machine's wheels.
_MANYLINUX = {"amd64": "manylinux_2_17_x86_64", "arm64": "manylinux_2_17_aarch64"}
#: ``platform.machine()`` -> Docker's name for it.
_HOST_ARCHITECTURE = {"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64"}


def _wheel_target(profile: str, architecture: str | None) -> list[str]:
    """pip download's options for the wheels a pinned profile's image installs: its Python,
    not the host's (a binary wheel such as PyYAML's is per Python and machine)."""
    from ..images.profiles import load_profiles

    pinned = load_profiles().get(profile)
    if pinned is None:
        return []
    options = ["--python-version", pinned.python, "--implementation", "cp"]
    tag = _MANYLINUX.get(architecture or "")
    if tag is not None:
        options += ["--platform", tag]
    return options


def _key(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:12]


def _overlay(framework: str, profile: str, console: Console) -> Path:
    """The census lock's packages in a folder of their own, for the cell's Python (a
    pinned profile's venv runs that profile's Python, not the one running pip here)."""
    lock = census_lock(framework, profile)
    data = lock.read_bytes()
    target = _wheel_target(profile, _HOST_ARCHITECTURE.get(platform.machine()))
    folder = state_dir() / "census" / f"{framework}-{_key(data, ' '.join(target).encode())}"
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
        *target,
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
    # They go into a folder of their own (IMAGE_SITE), never into the cell's environment:
    # installed there, a pinned absl-py would replace the one TensorFlow's lock chose.
    return (
        b"ARG CELL_IMAGE\n"
        b"FROM ${CELL_IMAGE}\n"
        b"USER root\n"
        b"COPY census/ /etc/portbench/census/\n"
        b"RUN /opt/cell/bin/pip install --no-cache-dir --no-deps --require-hashes --no-index "
        b"--disable-pip-version-check --find-links /etc/portbench/census/wheels "
        b"--target " + IMAGE_SITE.encode() + b" -r /etc/portbench/census/lock.txt\n"
        b"USER 10001:10001\n"
    )


def _wheels(lock: Path, into: Path, target: list[str]) -> None:
    """Download the lock's wheels on the host (checked against their hashes) for the
    image's Python and machine (``target``)."""
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
        *target,
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


def _context(lock: Path, target: list[str]) -> bytes:
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory(prefix="portbench-census-wheels-") as folder:
        _wheels(lock, Path(folder), target)
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
    prepared: PreparedEnvironment, framework: str, profile: str, console: Console
) -> ImageRef:
    """The census image derived from the cell's image (built once, then reused by tag)."""
    from docker.errors import APIError, BuildError, ImageNotFound

    from ..images.build import docker_client

    assert prepared.image is not None
    cell_image = prepared.image
    lock_path = census_lock(framework, profile)
    cell_id = cell_image.id
    key = _key(cell_id.encode(), _dockerfile(), lock_path.read_bytes())
    tag = f"portbench/census-{framework}:{key}"
    client = docker_client()
    try:
        image = client.images.get(tag)
    except ImageNotFound:
        console.print(f"[dim]building the census image {tag} FROM {cell_image.tag}[/]")
        try:
            architecture = client.images.get(cell_id).attrs.get("Architecture")
        except (ImageNotFound, APIError):
            architecture = None
        context = _context(lock_path, _wheel_target(profile, architecture))
        try:
            image, _ = client.images.build(
                fileobj=io.BytesIO(context),
                custom_context=True,
                tag=tag,
                buildargs={"CELL_IMAGE": cell_id},
                labels={
                    f"{LABEL}.cell-image": cell_id,
                    f"{LABEL}.lock-key": key,
                    # Which census lock it holds: `images prune` removes it once that lock
                    # is no longer in images/locks/census/ (its cell's lock label is inherited).
                    f"{LABEL}.lock-sha256": hashlib.sha256(lock_path.read_bytes()).hexdigest(),
                },
                network_mode="host",
                rm=True,
                forcerm=True,
            )
        except BuildError as exc:
            lines = [str(c.get("stream") or c.get("error") or "") for c in exc.build_log]
            raise EnvironmentBuildError(
                f"the census image {tag} could not be built FROM {cell_image.tag}",
                log="".join(lines),
            ) from None
        except APIError as exc:
            raise EnvironmentBuildError(
                f"the Docker engine refused the census image {tag}: {exc.explanation}"
            ) from None
    if image.labels.get(f"{LABEL}.cell-image") != cell_id:
        raise EnvironmentBuildError(
            f"{tag} is not derived from {cell_image.tag}; remove that tag and run again"
        )
    # The cell's own image it was derived from, named beside it.
    extra = {**cell_image.extra, "cell_image": cell_image.id, "cell_image_tag": cell_image.tag}
    return replace(cell_image, id=str(image.id), tag=tag, extra=extra)


def census_environment(
    prepared: PreparedEnvironment, framework: str, profile: str, console: Console
) -> tuple[PreparedEnvironment, tuple[str, ...]]:
    """The cell's environment with the census lock of ``profile`` layered on, and the
    folders (if any) the worker must append to its path."""
    if prepared.image is not None:
        image = _derived_image(prepared, framework, profile, console)
        described = replace(prepared, image=image, description=f"container {image.tag}")
        return described, (IMAGE_SITE,)
    return prepared, (str(_overlay(framework, profile, console)),)
