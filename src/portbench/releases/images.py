"""A release's image: its lock installed on the base of the lock's Python, tagged and
labelled with the release; removed again once a sweep's cell has landed.

The image is built from the framework's usual Dockerfile (``images/dockerfiles/``), whose
``BASE`` argument names the base of the lock's Python (``python:3.13-slim-trixie``, or the
local debootstrap ``portbench/base:trixie``). Its tag is ``portbench/<fw>-<flavor>:<release
tag>-<content key>`` (``portbench/jax-cpu:jax-0.6.2-3f1c...``); its labels add the release,
the lock's build, Python and lock id to what every cell image carries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..images.build import LABEL, ImageSpec, default_ca_bundle, image_labels
from ..images.locks import Lock
from ..images.profiles import Profile
from ..paths import images_dir
from .locking import release_lock
from .pythons import BASE_PYTHONS, BasePython
from .spec import Release

__all__ = [
    "DiskEstimate",
    "base_python_of",
    "disk_estimate",
    "release_image_spec",
    "remove_release_image",
]

#: Installed bytes per byte of wheel (zip-compressed). Measured here: jax 0.4.13 (126 MB of
#: wheels, 491 MB installed) and tensorflow 2.12.1 (0.34 GB, 1.28 GB), 3.7-3.9. torch's
#: wheels are mostly CUDA libraries, which compress less: 2.3 is an assumption not yet
#: measured here. An estimate to plan disk by; the built image's size is the figure.
INSTALLED_PER_WHEEL_BYTE = {"jax": 3.8, "tensorflow": 3.8, "torch": 2.3}
#: The base image and what the Dockerfile adds to it (a venv, pip), without the lock.
BASE_IMAGE_BYTES = 310_000_000


def base_python_of(lock: Lock) -> BasePython:
    for base in BASE_PYTHONS:
        if base.python == lock.python and (lock.suite in (None, base.suite)):
            return base
    raise UsageError(
        f"{lock.path}: Python {lock.python} is none of the base images' "
        f"({', '.join(b.python for b in BASE_PYTHONS)}); make the lock anew"
    )


def release_image_spec(
    release: Release,
    flavor: str,
    note: Callable[[str], None] = lambda _: None,
    base: str | None = None,
    ca_bundle: Path | None = None,
    find_links: Path | None = None,
) -> ImageSpec:
    """What to build for ``release``: its lock (committed, cached or made now) on its base."""
    lock = release_lock(release, flavor, note)
    python = base_python_of(lock)
    profile = Profile(
        name="release",
        python=python.python,
        description=f"{release.pin} on Python {python.python}",
        base={flavor: python.public_base},
        local_base=python.local_base,
        suite=python.suite,
    )
    return ImageSpec(
        framework=release.framework,
        flavor=flavor,
        profile=profile,
        lock=lock,
        dockerfile=images_dir() / "dockerfiles" / f"{release.framework}-{flavor}.Dockerfile",
        base=base or python.public_base,
        ca_bundle=ca_bundle if ca_bundle is not None else default_ca_bundle(),
        find_links=find_links,
        release_tag=release.tag,
    )


@dataclass(frozen=True)
class DiskEstimate:
    download_bytes: int
    """The lock's wheels (the largest wheel of each package)."""
    image_bytes: int
    """About what the image takes on disk: the base plus the unpacked wheels."""

    def __str__(self) -> str:
        return f"about {self.image_bytes / 1e9:.1f} GB on disk ({self.download_bytes / 1e9:.2f} GB of wheels)"


def disk_estimate(lock: Lock) -> DiskEstimate:
    """How much disk a release's image needs, from its lock's wheel sizes."""
    download = sum(package.size_bytes for package in lock.packages)
    factor = INSTALLED_PER_WHEEL_BYTE.get(lock.framework, max(INSTALLED_PER_WHEEL_BYTE.values()))
    return DiskEstimate(download, BASE_IMAGE_BYTES + int(download * factor))


def remove_release_image(client: Any, tag: str) -> int:
    """Remove a release's image once its cell has landed; the bytes freed (0 if it stays).

    Only an image whose labels name a release is touched, so a profile's image or one of
    the user's is never removed, whatever ``tag`` says. It is removed by its tag, never by
    id: an image that carries another tag too (one a user gave it) only loses this one.
    """
    from docker.errors import APIError, ImageNotFound

    try:
        image = client.images.get(tag)
    except ImageNotFound:
        return 0
    labels = image_labels(image)
    if not labels.get(f"{LABEL}.release"):
        raise UsageError(f"{tag} is not a release's image (no {LABEL}.release label); not removed")
    if tag not in (image.tags or []):
        raise UsageError(f"{tag} is not a tag of that image; name the release image by its tag")
    size = int(image.attrs.get("Size", 0))
    try:
        # noprune=False: the untagged layers it leaves go with it.
        client.images.remove(tag, noprune=False)
    except ImageNotFound:
        return 0
    except APIError as exc:
        raise UsageError(
            f"the Docker engine kept {tag} ({exc.explanation}); a container may still use it"
        ) from None
    try:
        client.images.get(str(image.id))
    except ImageNotFound:
        return size
    return 0
