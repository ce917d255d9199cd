"""Intel GPUs for PyTorch's ``xpu`` device: DRM render nodes in sysfs, the vendor's tools.

Each GPU the i915 or xe driver drives has a render node (``/dev/dri/renderD128``) whose
sysfs ``device`` folder holds its PCI vendor (0x8086) and device id; the model is told by
that id (the accelerator table lists each model's ids) or by name from ``xpu-smi discovery
-j`` or ``sycl-ls`` where installed. The tools' output formats were read from their
documentation and users' output, not from a run here: no Intel GPU was at hand.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .probe import read_small, run_tool

__all__ = ["IntelGpu", "IntelScan", "parse_sycl_ls", "parse_xpu_smi", "scan_intel"]

INTEL_VENDOR = 0x8086
DRIVERS = ("i915", "xe")
# [level_zero:gpu][level_zero:0] Intel(R) Level-Zero, Intel(R) Arc(TM) A770 Graphics 12.55.8 [1.3.29138]
_SYCL_GPU = re.compile(r"^\[level_zero:gpu\]\[level_zero:\d+\][^,]*,\s*(?P<name>.+?)\s+[\d.]+\s+\[")


@dataclass(frozen=True)
class IntelGpu:
    render_node: str
    pci_device: int | None
    driver: str
    name: str | None = None

    def describe(self) -> str:
        pci = f"0x{self.pci_device:04x}" if self.pci_device is not None else "?"
        return f"{self.name or 'Intel GPU'} (PCI {pci}, {self.driver})"


@dataclass(frozen=True)
class IntelScan:
    gpus: list[IntelGpu] = field(default_factory=list)
    named_by: str = ""


def _hex(text: str | None) -> int | None:
    try:
        return int(text.strip(), 16) if text else None
    except ValueError:
        return None


def render_nodes(root: Path) -> list[IntelGpu]:
    """Intel GPUs with a render node under ``root`` (its device file present too)."""
    drm = root / "sys/class/drm"
    if not drm.is_dir():
        return []
    gpus = []
    for node in sorted(drm.glob("renderD*")):
        device = node / "device"
        if _hex(read_small(device / "vendor")) != INTEL_VENDOR:
            continue
        try:
            driver = os.path.basename(os.readlink(device / "driver"))
        except OSError:
            driver = ""
        if driver not in DRIVERS or not (root / "dev/dri" / node.name).exists():
            continue
        gpus.append(IntelGpu(node.name, _hex(read_small(device / "device")), driver))
    return gpus


def parse_xpu_smi(out: str) -> list[tuple[str, int | None]]:
    """(device name, PCI device id) per GPU from ``xpu-smi discovery -j``."""
    try:
        data = json.loads(out)
    except ValueError:
        return []
    devices = data.get("device_list", []) if isinstance(data, dict) else data
    found = []
    for device in devices if isinstance(devices, list) else []:
        if isinstance(device, dict) and isinstance(device.get("device_name"), str):
            found.append((device["device_name"].strip(), _hex(str(device.get("pci_device_id")))))
    return found


def parse_sycl_ls(out: str) -> list[tuple[str, int | None]]:
    """(device name, None) per Level Zero GPU from ``sycl-ls``."""
    return [(m.group("name"), None) for m in map(_SYCL_GPU.match, out.splitlines()) if m]


def tool_names(path: str | None) -> tuple[list[tuple[str, int | None]], str]:
    out = run_tool("xpu-smi", ["discovery", "-j"], path)
    named = parse_xpu_smi(out) if out else []
    if named:
        return named, "xpu-smi"
    out = run_tool("sycl-ls", [], path)
    named = parse_sycl_ls(out) if out else []
    return (named, "sycl-ls") if named else ([], "")


def scan_intel(root: Path, path: str | None) -> IntelScan:
    """Intel GPUs here, named where a tool names them (matched by PCI id, else by order)."""
    gpus = render_nodes(root)
    if not gpus:
        return IntelScan()
    named, tool = tool_names(path)
    by_pci = {pci: name for name, pci in named if pci is not None}
    in_order = [name for name, _ in named]
    out = []
    for index, gpu in enumerate(gpus):
        name = by_pci.get(gpu.pci_device) if gpu.pci_device is not None else None
        if name is None and len(in_order) == len(gpus):
            name = in_order[index]
        out.append(IntelGpu(gpu.render_node, gpu.pci_device, gpu.driver, name))
    return IntelScan(out, tool)
