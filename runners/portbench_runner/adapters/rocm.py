"""The gfx target check every framework's ROCm cell makes, beside the device name's."""

from __future__ import annotations

from typing import Any, Dict

from .base import DeviceMismatch

__all__ = ["check_gfx", "gfx_of"]


def gfx_of(arch: str) -> str:
    """``gfx942`` of ``gfx942:sramecc+:xnack-`` (HIP's gcnArchName carries feature flags)."""
    return arch.strip().partition(":")[0]


def check_gfx(reported: str, accelerator: Dict[str, Any]) -> None:
    """Raise :class:`DeviceMismatch` when the framework reports another gfx target than the
    cell's id names (the plan's ``gfx``); nothing to check where either is unknown."""
    wanted = str(accelerator.get("gfx") or "")
    found = gfx_of(reported)
    if wanted and found.startswith("gfx") and found != wanted:
        raise DeviceMismatch(
            f"accelerator '{accelerator.get('id', '?')}' expects gfx target {wanted}, but this "
            f"GPU is {found}; run the cell with the id of the hardware present (or the "
            f"generic '{accelerator.get('generic', 'rocm')}')"
        )
