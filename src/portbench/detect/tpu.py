"""TPU chips and their generation: device files, Google's PCI ids, the VM's accelerator type.

A TPU VM shows its chips as ``/dev/accel*`` (v4 and newer) or ``/dev/vfio/N`` (v2, v3).
Which generation they are is told, most exactly first, by the VM's accelerator type
(``v5litepod-8``, ``v6e-8``: the ``TPU_ACCELERATOR_TYPE`` variable, else the GCE metadata
server's ``accelerator-type`` attribute), then by the chips' PCI device ids under Google's
vendor id 0x1ae0 (the ids JAX's own ``hardware_utils`` reads; v2 and v3 share 0x0027, so the
id alone cannot tell those two apart).
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .probe import read_small

__all__ = [
    "METADATA_URL",
    "PCI_GENERATIONS",
    "TpuScan",
    "generation_of_type",
    "pci_generations",
    "scan_tpu",
]

GOOGLE_VENDOR = 0x1AE0
#: PCI device id -> the generations it can be (jax/_src/hardware_utils.py, jax 0.10.2).
PCI_GENERATIONS: dict[int, tuple[str, ...]] = {
    0x0027: ("v2", "v3"),
    0x005E: ("v4",),
    0x0062: ("v5p",),
    0x0063: ("v5e",),
    0x006F: ("v6e",),
    0x0076: ("v7x",),
}
#: The accelerator type's prefix (``v5litepod`` of ``v5litepod-8``) -> the generation.
TYPE_PREFIXES = {
    "v2": "v2",
    "v3": "v3",
    "v4": "v4",
    "v5litepod": "v5e",
    "v5e": "v5e",
    "v5p": "v5p",
    "v6e": "v6e",
    "tpu7x": "v7x",
}
METADATA_URL = (
    "http://metadata.google.internal/computeMetadata/v1/instance/attributes/accelerator-type"
)
METADATA_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class TpuScan:
    chips: int
    """TPU device files (or, without them, Google PCI functions) seen."""
    generations: tuple[str, ...]
    """What the chips can be: one generation, two (v2/v3 by PCI id alone), or none known."""
    source: str
    """How the generation was told (``accelerator type v5litepod-8``, ``PCI id 0x0063``)."""

    def describe(self) -> str:
        if not self.chips:
            return "no TPU devices under /dev/accel* or /dev/vfio"
        which = " or ".join(f"TPU {g}" for g in self.generations) or "TPU of unknown generation"
        return f"{self.chips} x {which} ({self.source})"


def generation_of_type(accelerator_type: str) -> str | None:
    """``v5litepod-8`` -> ``v5e``, ``v6e-8`` -> ``v6e``; None for a type not known here."""
    return TYPE_PREFIXES.get(accelerator_type.strip().lower().split("-", 1)[0])


def pci_generations(root: Path) -> tuple[int, tuple[str, ...], list[int]]:
    """(TPU functions, their possible generations, unknown device ids) from PCI sysfs."""
    chips, unknown = 0, []
    generations: set[str] = set()
    devices = root / "sys/bus/pci/devices"
    if not devices.is_dir():
        return 0, (), []
    for device in sorted(devices.iterdir()):
        vendor = (read_small(device / "vendor") or "").strip()
        if not vendor.startswith("0x") or int(vendor, 16) != GOOGLE_VENDOR:
            continue
        try:
            ident = int((read_small(device / "device") or "").strip(), 16)
        except ValueError:
            continue
        if ident in PCI_GENERATIONS:
            chips += 1
            generations.update(PCI_GENERATIONS[ident])
        else:
            unknown.append(ident)
    return chips, tuple(sorted(generations)), unknown


def device_files(root: Path) -> tuple[int, int]:
    """(``/dev/accelN`` files, ``/dev/vfio/N`` files). The kernel's accel subsystem puts other
    vendors' devices (Intel's NPU) under the folder ``/dev/accel/``, which is not counted."""
    dev = root / "dev"
    accel = list(dev.glob("accel[0-9]*")) if dev.is_dir() else []
    vfio = list((dev / "vfio").glob("[0-9]*")) if (dev / "vfio").is_dir() else []
    return len(accel), len(vfio)


def metadata_type(url: str) -> str | None:
    """The VM's accelerator type from the metadata server; None off GCE or without answer."""
    request = urllib.request.Request(url, headers={"Metadata-Flavor": "Google"})
    try:
        with urllib.request.urlopen(request, timeout=METADATA_TIMEOUT_S) as response:
            text = response.read(256).decode("ascii", "replace").strip()
    except (OSError, urllib.error.URLError, ValueError):
        return None
    return text or None


def scan_tpu(root: Path, env: Mapping[str, str], metadata_url: str | None) -> TpuScan:
    """The TPU chips here and what generation they are. The metadata server is asked only
    where there are chips whose generation neither the environment nor PCI ids settle."""
    accel, vfio = device_files(root)
    pci_chips, pci_gens, unknown = pci_generations(root)
    declared = env.get("TPU_ACCELERATOR_TYPE", "").strip()
    # /dev/vfio also holds any device passed through to VMs: TPU chips (v2, v3) only where
    # Google's PCI functions or the accelerator type say this is a TPU VM.
    chips = accel + (vfio if pci_chips or unknown or declared else 0) or pci_chips
    if not chips:
        return TpuScan(0, (), "")
    if not declared and len(pci_gens) != 1 and metadata_url:
        declared = metadata_type(metadata_url) or ""
    if declared:
        generation = generation_of_type(declared)
        if generation:
            return TpuScan(chips, (generation,), f"accelerator type {declared}")
    if pci_gens:
        ids = ", ".join(f"0x{i:04x}" for i, g in PCI_GENERATIONS.items() if set(g) & set(pci_gens))
        return TpuScan(chips, pci_gens, f"PCI id {ids}")
    why = (
        f"unknown PCI ids {', '.join(f'0x{i:04x}' for i in unknown)}"
        if unknown
        else "no Google PCI ids in sysfs"
    )
    return TpuScan(chips, (), f"{why} and no accelerator type (set TPU_ACCELERATOR_TYPE)")
