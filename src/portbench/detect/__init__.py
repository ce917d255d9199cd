"""What accelerator hardware this machine shows, read on the host before a cell starts.

Device files, sysfs and, where installed, the vendor's tool: ``nvidia-smi`` (NVIDIA),
KFD's topology with ``amd-smi``/``rocm-smi`` (AMD, ROCm), DRM render nodes with
``xpu-smi``/``sycl-ls`` (Intel, XPU), ``system_profiler`` (Apple, MPS), device files,
PCI ids and the VM's accelerator type (TPU). :class:`HostDevices` reads each family once,
on first use, from a root folder (``/`` on a real machine; tests give a made-up tree).
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path

from .amd import AmdGpu, AmdScan, scan_amd
from .apple import AppleScan, scan_apple
from .intel import IntelGpu, IntelScan, scan_intel
from .nvidia import nvidia_gpus
from .tpu import METADATA_URL, TpuScan, scan_tpu

__all__ = [
    "AmdGpu",
    "AmdScan",
    "AppleScan",
    "HostDevices",
    "IntelGpu",
    "IntelScan",
    "TpuScan",
    "host_devices",
]


class HostDevices:
    """The accelerators of one machine, each family read once when first asked for.

    ``root`` is where ``sys/`` and ``dev/`` are looked for, ``path`` the PATH the vendor
    tools are looked up on (None: this process's), ``env`` the environment (TPU accelerator
    type), ``system``/``machine`` the platform, ``metadata_url`` the GCE metadata attribute
    for the TPU accelerator type (None: never asked).
    """

    def __init__(
        self,
        root: Path = Path("/"),
        path: str | None = None,
        env: Mapping[str, str] | None = None,
        system: str | None = None,
        machine: str | None = None,
        metadata_url: str | None = METADATA_URL,
    ) -> None:
        self.root = root
        self.path = path
        self.env = dict(os.environ if env is None else env)
        self.system = platform.system() if system is None else system
        self.machine = platform.machine() if machine is None else machine
        self.metadata_url = metadata_url

    @cached_property
    def nvidia(self) -> list[str]:
        return nvidia_gpus(self.path)

    @cached_property
    def amd(self) -> AmdScan:
        return scan_amd(self.root, self.path)

    @cached_property
    def intel(self) -> IntelScan:
        return scan_intel(self.root, self.path)

    @cached_property
    def apple(self) -> AppleScan:
        return scan_apple(self.system, self.machine, self.path)

    @cached_property
    def tpu(self) -> TpuScan:
        return scan_tpu(self.root, self.env, self.metadata_url)


_HOST: HostDevices | None = None


def host_devices() -> HostDevices:
    """This machine, read once per process (``doctor`` and ``matrix`` ask about every id)."""
    global _HOST
    if _HOST is None:
        _HOST = HostDevices()
    return _HOST
