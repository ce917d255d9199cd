"""AMD GPUs for ROCm: the KFD topology in sysfs (gfx target), the vendor's tool (model name).

The amdgpu driver's compute interface (KFD) lists one topology node per CPU and GPU under
``/sys/class/kfd/kfd/topology/nodes/N/properties``; a GPU node has ``simd_count`` above zero
and a ``gfx_target_version`` (major * 10000 + minor * 100 + stepping: 90402 is gfx942,
90010 is gfx90a). The marketing name (``AMD Instinct MI300X``) is not in sysfs: ``amd-smi``
or, on older installs, ``rocm-smi`` gives it where installed. Both tools' JSON layouts are
read tolerantly (keys matched without case), as written from their sources: no AMD
hardware or tool was at hand where this was written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .probe import read_small, run_tool

__all__ = ["AmdGpu", "AmdScan", "gfx_name", "kfd_gpus", "scan_amd", "tool_names"]

_PROPERTY = re.compile(r"^([a-z_]+)\s+(-?\d+)\s*$", re.MULTILINE)
_GFX = re.compile(r"\bgfx[0-9a-f]{3,5}\b", re.IGNORECASE)


@dataclass(frozen=True)
class AmdGpu:
    gfx: str
    """The gfx target (``gfx942``): what ROCm's kernels are compiled for."""
    name: str | None = None
    """The marketing name, where a vendor tool gave it (``AMD Instinct MI300X``)."""
    pci_device: int | None = None

    def describe(self) -> str:
        return f"{self.name} ({self.gfx})" if self.name else self.gfx


@dataclass(frozen=True)
class AmdScan:
    gpus: list[AmdGpu] = field(default_factory=list)
    problem: str = ""
    """Why ROCm cannot use GPUs that are there ("" when nothing is in the way)."""
    named_by: str = ""
    """The tool that gave the marketing names ("" when none answered)."""


def gfx_name(target_version: int) -> str:
    """``gfx_target_version`` as the gfx target: 90402 -> gfx942, 90010 -> gfx90a."""
    major, minor, stepping = (
        target_version // 10000,
        target_version // 100 % 100,
        target_version % 100,
    )
    return f"gfx{major}{minor}{stepping:x}"


def kfd_gpus(root: Path) -> list[AmdGpu] | None:
    """The GPU nodes of the KFD topology under ``root``; None where there is no topology."""
    nodes = root / "sys/class/kfd/kfd/topology/nodes"
    if not nodes.is_dir():
        return None
    gpus = []
    for node in sorted(nodes.iterdir(), key=lambda p: (len(p.name), p.name)):
        text = read_small(node / "properties")
        if text is None:
            continue
        props = {k: int(v) for k, v in _PROPERTY.findall(text)}
        if props.get("simd_count", 0) > 0 and props.get("gfx_target_version", 0) > 0:
            gpus.append(AmdGpu(gfx_name(props["gfx_target_version"]), None, props.get("device_id")))
    return gpus


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object inside ``value``, depth first (the tools nest theirs differently)."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _objects(item)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item)


def _field(obj: dict[str, Any], *names: str) -> str | None:
    wanted = {n.lower() for n in names}
    for key, value in obj.items():
        if key.lower() in wanted and isinstance(value, str) and value.strip():
            return value.strip()
    return None


def parse_amd_smi(out: str) -> list[tuple[str, str | None]]:
    """(market name, gfx target) per GPU from ``amd-smi static --asic --json``."""
    try:
        data = json.loads(out)
    except ValueError:
        return []
    found = []
    for obj in _objects(data):
        name = _field(obj, "market_name")
        if name:
            gfx = _field(obj, "target_graphics_version")
            found.append((name, gfx.lower() if gfx and _GFX.fullmatch(gfx) else None))
    return found


def parse_rocm_smi(out: str) -> list[tuple[str, str | None]]:
    """(card series, gfx target) per card from ``rocm-smi --showproductname --json``."""
    try:
        data = json.loads(out)
    except ValueError:
        return []
    found = []
    if isinstance(data, dict):
        for card, obj in sorted(data.items()):
            if not card.lower().startswith("card") or not isinstance(obj, dict):
                continue
            name = _field(obj, "card series", "device name")
            if name:
                gfx = _field(obj, "gfx version")
                found.append((name, gfx.lower() if gfx and _GFX.fullmatch(gfx) else None))
    return found


def tool_names(path: str | None) -> tuple[list[tuple[str, str | None]], str]:
    """The GPUs the vendor's tool names, and which tool: amd-smi first (rocm-smi is its
    deprecated predecessor), then rocm-smi."""
    out = run_tool("amd-smi", ["static", "--asic", "--json"], path)
    named = parse_amd_smi(out) if out else []
    if named:
        return named, "amd-smi"
    out = run_tool("rocm-smi", ["--showproductname", "--json"], path)
    named = parse_rocm_smi(out) if out else []
    return (named, "rocm-smi") if named else ([], "")


def _with_names(gpus: list[AmdGpu], named: list[tuple[str, str | None]]) -> list[AmdGpu]:
    """Attach tool names to KFD GPUs: by position when the counts agree, else by gfx target."""
    if len(named) == len(gpus):
        return [AmdGpu(g.gfx, n, g.pci_device) for g, (n, _) in zip(gpus, named, strict=True)]
    out = []
    for gpu in gpus:
        name = next((n for n, gfx in named if gfx == gpu.gfx), None)
        out.append(AmdGpu(gpu.gfx, name, gpu.pci_device))
    return out


def scan_amd(root: Path, path: str | None) -> AmdScan:
    """AMD GPUs ROCm could use here: KFD's GPU nodes, named by the vendor's tool if present."""
    kfd = kfd_gpus(root)
    named, tool = tool_names(path)
    if not kfd:
        # No topology visible (sysfs hidden, or no amdgpu driver): the tool alone, if it
        # names GPUs with their gfx target, still says what is there.
        gpus = [AmdGpu(gfx, name) for name, gfx in named if gfx]
        if not gpus:
            return AmdScan()
        return AmdScan(gpus, "", tool)
    gpus = _with_names(kfd, named)
    problem = ""
    if not (root / "dev/kfd").exists():
        problem = "the KFD topology lists GPUs but /dev/kfd is missing, so ROCm cannot reach them (is the amdgpu driver loaded?)"
    return AmdScan(gpus, problem, tool)
