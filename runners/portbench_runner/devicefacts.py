"""Driver and environment facts of a cell's accelerator, framework-free, for env.json.

The NVIDIA driver has its own reader in ``envinfo``; this adds what the other flavors'
machines show: the amdgpu driver's version (ROCm), and the variables that pick or name the
device a cell sees (``HIP_VISIBLE_DEVICES``, ``ZE_AFFINITY_MASK``, ``TPU_ACCELERATOR_TYPE``),
which change what a cell measures without showing in any package version.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional

__all__ = ["VISIBILITY_ENV", "amdgpu_driver", "device_facts"]

#: Per flavor, the variables recorded as they were when the cell ran.
VISIBILITY_ENV = {
    "cuda": ("CUDA_VISIBLE_DEVICES",),
    "rocm": ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION"),
    "xpu": ("ZE_AFFINITY_MASK", "ONEAPI_DEVICE_SELECTOR"),
    "tpu": ("TPU_ACCELERATOR_TYPE", "TPU_VISIBLE_CHIPS", "TPU_PROCESS_BOUNDS"),
}


def amdgpu_driver(root: str = "/") -> Optional[str]:
    """The amdgpu kernel module's version (AMD's DKMS driver writes one); None otherwise."""
    try:
        with open(os.path.join(root, "sys/module/amdgpu/version"), encoding="utf-8") as handle:
            return handle.read(64).strip() or None
    except OSError:
        return None


def device_facts(flavor: str) -> Dict[str, Any]:
    """Facts to add to env.json's ``device`` (an adapter's own keys win over these)."""
    facts: Dict[str, Any] = {}
    if flavor == "rocm":
        facts["driver_version"] = amdgpu_driver()
    if flavor in VISIBILITY_ENV:
        names = VISIBILITY_ENV[flavor]
        facts["device_env"] = {n: os.environ[n] for n in names if n in os.environ}
    return facts
