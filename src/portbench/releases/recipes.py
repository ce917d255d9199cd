"""What a release's lock pins, per framework and flavor.

``jax==V`` needs the jaxlib of the same version (a jax release without one is not a cell);
TensorFlow's CPU build is the ``tensorflow-cpu`` package of the release's version; PyTorch's
CPU build is ``torch==V+cpu`` on PyTorch's own index, else PyPI's ``torch==V`` (a CUDA
build on Linux, recorded as such). The wheel package's wheels decide which Python a release
runs on; the date package's first upload dates the release.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError
from .spec import Release

__all__ = ["RELEASE_FLAVORS", "Recipe", "recipe"]

#: Flavors a release cell is built for. CUDA and TPU cells pin through the profiles.
RELEASE_FLAVORS = ("cpu",)


@dataclass(frozen=True)
class Recipe:
    release: Release
    flavor: str
    requirements: tuple[str, ...]
    """What is pinned; every transitive package is resolved from these."""
    wheel_package: str
    """Whose wheels decide the Python (jaxlib: jax itself is pure Python)."""
    date_package: str
    """Whose first upload is the release's date (jaxlib's old wheels were uploaded again later)."""
    torch_cpu: bool = False
    """Try PyTorch's CPU index first (``torch==V+cpu``)."""

    @property
    def pinned(self) -> tuple[str, ...]:
        """The names pinned exactly (exempt from the dependency date: their own wheels may
        have been uploaded after the release day)."""
        return tuple(req.split("==", 1)[0] for req in self.requirements if "==" in req)


def recipe(release: Release, flavor: str) -> Recipe:
    """The recipe of ``release`` for ``flavor``; another flavor is one sentence."""
    if flavor not in RELEASE_FLAVORS:
        raise UsageError(
            f"{release.pin}: release cells are built for the CPU only ({flavor} asked); on "
            "GPUs and TPUs use a profile (--profile current), whose locks pin those builds"
        )
    version = release.version
    if release.framework == "jax":
        return Recipe(release, flavor, (f"jax=={version}", f"jaxlib=={version}"), "jaxlib", "jax")
    if release.framework == "tensorflow":
        package = "tensorflow-cpu"
        return Recipe(release, flavor, (f"{package}=={version}",), package, package)
    # torch does not require numpy, but the cases' references use it: numpy of the release's day.
    return Recipe(release, flavor, (f"torch=={version}", "numpy"), "torch", "torch", torch_cpu=True)
