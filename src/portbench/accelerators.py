"""The accelerator table (images/accelerators.toml) and detection of what this machine has."""

from __future__ import annotations

import glob
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from typing import Any

from .errors import AcceleratorMissing, UsageError
from .paths import images_dir

__all__ = ["Accelerator", "detect_gpus", "get_accelerator", "is_present", "load_accelerators"]

FLAVORS = ("cpu", "cuda", "tpu")


@dataclass(frozen=True)
class Accelerator:
    id: str
    flavor: str
    device_match: str
    generic: str
    detect: str
    container: dict[str, Any] = field(default_factory=dict)
    """Container options for the docker backend (device requests, privileges)."""
    skypilot: str = ""
    """What SkyPilot provisions for this id (``T4:1``, ``tpu-v3-8``); "" where no model is named."""

    def to_plan(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "flavor": self.flavor,
            "device_match": self.device_match,
            "generic": self.generic,
        }


def load_accelerators() -> dict[str, Accelerator]:
    path = images_dir() / "accelerators.toml"
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the accelerator table ({exc})") from None
    accelerators = {}
    for ident, row in table.items():
        flavor = row.get("flavor")
        if flavor not in FLAVORS:
            raise UsageError(
                f"{path}: accelerator '{ident}' has flavor {flavor!r} (allowed: {', '.join(FLAVORS)})"
            )
        accelerators[ident] = Accelerator(
            id=ident,
            flavor=flavor,
            device_match=row.get("device_match", ""),
            generic=row.get("generic", ident),
            detect=row.get("detect", "always"),
            container=dict(row.get("container", {})),
            skypilot=str(row.get("skypilot", "")),
        )
    return accelerators


def get_accelerator(ident: str) -> Accelerator:
    table = load_accelerators()
    if ident not in table:
        raise UsageError(f"unknown accelerator '{ident}' (known: {', '.join(table)})")
    return table[ident]


def detect_gpus() -> list[str]:
    """GPU names from ``nvidia-smi -L``; empty without a driver."""
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        out = subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    names = []
    for line in out.splitlines():
        # "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)"
        if line.startswith("GPU ") and ":" in line:
            names.append(line.split(":", 1)[1].split("(UUID")[0].strip())
    return names


def detect_tpu() -> bool:
    return bool(glob.glob("/dev/accel*") or glob.glob("/dev/vfio/[0-9]*"))


def is_present(accelerator: Accelerator) -> tuple[bool, str]:
    """(present, what was found) for the hardware an accelerator id names."""
    import re

    if accelerator.detect == "always":
        return True, "cpu"
    if accelerator.detect == "nvidia-smi":
        gpus = detect_gpus()
        if not gpus:
            return False, "no NVIDIA GPU (nvidia-smi is missing or lists none)"
        pattern = accelerator.device_match
        matching = [g for g in gpus if not pattern or re.search(pattern, g, re.IGNORECASE)]
        if not matching:
            return False, f"GPUs found: {', '.join(gpus)}"
        return True, matching[0]
    if accelerator.detect == "tpu":
        return (
            (True, "TPU devices")
            if detect_tpu()
            else (False, "no TPU devices under /dev/accel* or /dev/vfio")
        )
    return False, f"unknown detection method {accelerator.detect!r}"


def require_present(accelerator: Accelerator) -> None:
    present, found = is_present(accelerator)
    if not present:
        raise AcceleratorMissing(
            f"accelerator '{accelerator.id}' is not present on this machine ({found}); "
            "run this cell on a machine that has it, or pick one that is here "
            "(`portbench doctor` lists them)"
        )
