"""Facts about the cell's software and hardware, collected inside the cell for env.json."""

from __future__ import annotations

import os
import platform
import socket
import sys
from typing import Dict, Optional

from .adapters.base import Adapter
from .contract import TimingSettings
from .devicefacts import device_facts
from .timing import time_call

__all__ = ["collect_env", "cpu_facts", "dispatch_floor", "installed_packages"]


def installed_packages() -> Dict[str, str]:
    """Every installed distribution and its version (what ``pip list`` shows)."""
    from importlib import metadata

    packages: Dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            packages[name.lower()] = dist.version
    return dict(sorted(packages.items()))


def cpu_facts() -> Dict[str, object]:
    model = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    affinity: Optional[int] = None
    if hasattr(os, "sched_getaffinity"):
        affinity = len(os.sched_getaffinity(0))
    return {
        "model": model,
        "logical_cores": os.cpu_count(),
        "usable_cores": affinity,
        "machine": platform.machine(),
        "thread_env": {
            k: os.environ[k]
            for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
            if k in os.environ
        },
    }


def nvidia_driver() -> Optional[str]:
    """The NVIDIA driver version, from the kernel module or nvidia-smi; None without one."""
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8") as handle:
            for word in handle.readline().split():
                if word[:1].isdigit() and "." in word:
                    return word
    except OSError:
        pass
    import shutil
    import subprocess

    if shutil.which("nvidia-smi") is None:
        return None
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out.splitlines()[0] if out else None


def dispatch_floor(adapter: Adapter, settings: Optional[TimingSettings]) -> Dict[str, object]:
    """Time a null call (return the input) and the cheapest real op, as cases are timed."""
    x = adapter.null_inputs()
    _, null_timing = time_call(lambda: x, adapter.sync, settings)
    _, op_timing = time_call(lambda: adapter.null_op(x), adapter.sync, settings)
    return {"null": null_timing, "op": op_timing}


def collect_env(adapter: Adapter, settings: Optional[TimingSettings]) -> Dict[str, object]:
    """What the worker knows; the supervisor adds cell, backend, image and times."""
    try:
        device = adapter.env()
    except Exception as exc:  # facts are informative; a missing one must not stop the cell
        device = {
            "device_name": adapter.device_name,
            "device_count": None,
            "precision": {},
            "error": f"{type(exc).__name__}: {exc}",
        }
    try:
        floor: Dict[str, object] = dispatch_floor(adapter, settings)
    except Exception as exc:  # the floor is informative; its failure must not stop the cell
        floor = {"null": None, "op": None, "error": f"{type(exc).__name__}: {exc}"}
    if adapter.flavor == "cuda":
        device.setdefault("driver_version", nvidia_driver())
    for key, value in device_facts(adapter.flavor).items():
        device.setdefault(key, value)
    return {
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "packages": installed_packages(),
        "framework_version": adapter.version,
        "device": device,
        "cpu": cpu_facts(),
        "host": {
            "hostname": socket.gethostname(),
            "platform": platform.platform(),
            "kernel": platform.release(),
        },
        "dispatch_floor": floor,
    }
