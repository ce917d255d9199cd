"""NVIDIA GPUs, by name, from ``nvidia-smi -L``."""

from __future__ import annotations

from .probe import run_tool

__all__ = ["nvidia_gpus", "parse_nvidia_smi"]


def parse_nvidia_smi(out: str) -> list[str]:
    """GPU names from ``nvidia-smi -L`` lines: ``GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)``."""
    names = []
    for line in out.splitlines():
        if line.startswith("GPU ") and ":" in line:
            names.append(line.split(":", 1)[1].split("(UUID")[0].strip())
    return names


def nvidia_gpus(path: str | None) -> list[str]:
    """GPU names; empty without a driver (no ``nvidia-smi``, or one that lists none)."""
    out = run_tool("nvidia-smi", ["-L"], path)
    return parse_nvidia_smi(out) if out else []
