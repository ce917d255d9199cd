"""Apple silicon GPUs for PyTorch's ``mps`` device: macOS on arm64, named by system_profiler.

MPS needs macOS on an Apple-silicon machine; ``system_profiler SPDisplaysDataType -json``
names the GPU (``Apple M2 Pro``) and its Metal support. Written from Apple's documented
output, not run here: no Mac was at hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .probe import run_tool

__all__ = ["AppleScan", "parse_system_profiler", "scan_apple"]


@dataclass(frozen=True)
class AppleScan:
    present: bool
    found: str
    """What was seen: the GPU's name, or why there is no MPS device here."""


def parse_system_profiler(out: str) -> list[str]:
    """The GPU names (``sppci_model``) of ``system_profiler SPDisplaysDataType -json``."""
    try:
        data = json.loads(out)
    except ValueError:
        return []
    displays = data.get("SPDisplaysDataType") if isinstance(data, dict) else None
    names = []
    for item in displays if isinstance(displays, list) else []:
        if isinstance(item, dict) and isinstance(item.get("sppci_model"), str):
            names.append(item["sppci_model"].strip())
    return names


def scan_apple(system: str, machine: str, path: str | None) -> AppleScan:
    if system != "Darwin":
        return AppleScan(False, f"MPS needs macOS; this is {system or 'an unknown system'}")
    if machine != "arm64":
        return AppleScan(False, f"MPS needs Apple silicon (arm64); this Mac is {machine}")
    out = run_tool("system_profiler", ["SPDisplaysDataType", "-json"], path)
    names = parse_system_profiler(out) if out else []
    apple = [n for n in names if n.startswith("Apple")]
    if apple:
        return AppleScan(True, apple[0])
    return AppleScan(True, "Apple silicon (system_profiler named no GPU)")
