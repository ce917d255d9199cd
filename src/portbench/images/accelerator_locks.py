"""The current profile's locks for AMD (rocm), Intel (xpu) and Apple (mps) cells.

- ``jax-rocm``: jax's ROCm plugin and PJRT (``jax[rocm7-local]``) resolve from PyPI; the
  ROCm 7 user space they load (libamdhip64.so.7, rocBLAS, MIOpen, hipBLASLt, RCCL...) is
  on no Python index: it comes from the image's base, AMD's ROCm image.
- ``tensorflow-rocm``: PyPI's newest is 2.14.0.600, built for ROCm 6.0 and NumPy 1.x;
  AMD publishes newer ones on repo.radeon.com, which no index line can name (it is a
  folder of wheels, not an index) and which this project does not pin.
- ``torch-rocm``, ``torch-xpu``: PyTorch's own ``rocm7.2`` and ``xpu`` indexes serve these
  builds, and no machine this project was built on reaches them: the locks list the
  published pins only, unhashed (``verified=false``), and :func:`require_installable`
  refuses them until they are resolved where the index answers.
- ``torch-mps``: PyPI's macOS arm64 torch is the MPS build; resolved for macOS 14 on
  arm64 (the oldest its wheels are tagged for).

``jax-rocm`` and ``torch-mps`` pin the release of their framework's CPU lock, and a refresh
keeps them there (``follows``): a cell on the device and one on the CPU measure the same code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UsageError
from ..releases.cells import release_of_profile
from .locks import load_lock, lock_path

if TYPE_CHECKING:
    from .lockgen import CurrentLock

__all__ = ["INDEXES", "accelerator_current", "not_pinned", "require_installable"]

#: PyTorch's own wheel indexes for the device builds PyPI does not serve.
INDEXES = {
    "rocm": "https://download.pytorch.org/whl/rocm7.2",
    "xpu": "https://download.pytorch.org/whl/xpu",
}
PYPI = "uv pip compile against PyPI"


def accelerator_current() -> dict[tuple[str, str], CurrentLock]:
    """(framework, flavor) -> how ``current``'s lock is made, ``{version}`` being the
    version the lock pins now (``portbench images lock`` and ``images refresh``)."""
    from .lockgen import CurrentLock  # imported late: lockgen merges this table into its own

    rocm, xpu = INDEXES["rocm"], INDEXES["xpu"]
    return {
        ("jax", "rocm"): CurrentLock(
            "jax",
            ("jax[rocm7-local]=={version}",),
            True,
            PYPI + " (jax's ROCm plugin; ROCm 7's runtime libraries come from the image's base, "
            "AMD's ROCm image: no Python index serves them)",
            follows="cpu",
        ),
        ("tensorflow", "rocm"): CurrentLock(
            "tensorflow-rocm",
            ("tensorflow-rocm=={version}", "numpy<2"),
            True,
            PYPI + " (tensorflow-rocm 2.14.0.600, PyPI's newest: built for ROCm 6.0 and NumPy 1.x; "
            "newer ROCm builds are AMD's, on repo.radeon.com, not pinned here)",
        ),
        ("torch", "rocm"): CurrentLock(
            "torch",
            ("torch=={version}+rocm7.2", "triton-rocm==3.7.1", "numpy"),
            False,
            "torch 2.13.0's ROCm 7.2 build and its triton as PyTorch's rocm7.2 index names them; "
            "not resolved (that index was unreachable where this was written)",
            indexes=(("torch", rocm), ("triton-rocm", rocm)),
        ),
        ("torch", "xpu"): CurrentLock(
            "torch",
            ("torch=={version}+xpu", "triton-xpu==3.7.2", "numpy"),
            False,
            "torch 2.13.0's XPU build and its triton as PyTorch's xpu index names them; not "
            "resolved (that index was unreachable where this was written)",
            indexes=(("torch", xpu), ("triton-xpu", xpu)),
        ),
        ("torch", "mps"): CurrentLock(
            "torch",
            ("torch=={version}", "numpy"),
            True,
            PYPI + " for macOS 14 on arm64 (PyPI's macOS torch is the MPS build)",
            platform="aarch64-apple-darwin",
            env=(("MACOSX_DEPLOYMENT_TARGET", "14.0"),),
            follows="cpu",
        ),
    }


def not_pinned(profile: str, framework: str, flavor: str) -> str | None:
    """Why a pinned profile has no environment for this framework on this flavor (jax on
    xpu: no lock), in words a matrix row and a refusal both use; None where it has one."""
    # A release's tag (jax-0.6.2) pins through its release lock, made on demand.
    if profile == "host" or release_of_profile(profile, framework) is not None:
        return None
    path = lock_path(profile, framework, flavor)
    if path.exists():
        return None
    pinned = sorted(p.stem.split("-", 1)[1] for p in path.parent.glob(f"{framework}-*.txt"))
    return (
        f"profile '{profile}' pins no {framework} build for {flavor} (no {path.name}; it pins "
        f"{framework} for {', '.join(pinned) or 'nothing'})"
    )


def require_installable(profile: str, framework: str, flavor: str) -> None:
    """Refuse, in one sentence and before the device is looked for, a pinned profile that
    has no lock for this framework on this flavor (jax on xpu), and a lock that lists an
    index's packages without having been resolved against that index: installing it would
    take whatever the index serves that day, unhashed, with none of the packages those
    depend on."""
    unpinned = not_pinned(profile, framework, flavor)
    if unpinned:
        raise UsageError(
            f"{unpinned}: run it with your own install (--profile host), or pick another "
            "accelerator"
        )
    if profile == "host" or release_of_profile(profile, framework) is not None:
        return  # a release's lock is resolved by uv against its indexes, never unverified
    path = lock_path(profile, framework, flavor)
    lock = load_lock(path)
    if lock.verified or not lock.indexes:
        return
    urls = ", ".join(sorted(set(lock.indexes.values())))
    raise UsageError(
        f"{path.name} ({profile}) lists {', '.join(sorted(lock.indexes))} from {urls} without "
        "having been resolved there (no machine this project ran on reaches that index): "
        "resolve it on one that does (docs/accelerators.md, 'Locks from PyTorch's indexes') "
        "and run again"
    )
