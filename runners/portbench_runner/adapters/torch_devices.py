"""PyTorch on AMD (ROCm), Intel (XPU) and Apple (MPS) GPUs: device, synchronization, facts.

- ROCm builds of torch drive AMD GPUs as the ``cuda`` device through HIP: the same
  ``torch.cuda`` calls, with ``torch.version.hip`` set (and ``torch.version.cuda`` None).
- Intel GPUs are the ``xpu`` device of upstream builds (``torch.xpu``). torch-xpu-ops runs
  some ops on the CPU always (its fallback list: ``dot``, ``cholesky``...) and any op
  without an XPU kernel when ``PYTORCH_ENABLE_XPU_FALLBACK=1``; with
  ``PYTORCH_DEBUG_XPU_FALLBACK=1`` (set here unless the user set it, before torch is
  imported: it changes warnings only) each such call names its op, which the probe counts.
- Apple silicon is the ``mps`` device (``torch.mps``); an op without an MPS kernel fails,
  unless ``PYTORCH_ENABLE_MPS_FALLBACK=1`` (read once, when torch is imported) makes it
  run on the CPU with a warning: the probe below counts those.

Written against PyTorch's CPU build, whose ``torch.xpu``, ``torch.mps`` and
``torch.backends.mps`` exist and report no device; none of the three GPU kinds was at
hand, so nothing here has run on their hardware.
"""

from __future__ import annotations

import os
import platform
import re
import warnings
from typing import Any, Callable, Dict, List, Tuple

from .. import fallback
from .base import DeviceMissing
from .rocm import check_gfx, gfx_of

__all__ = [
    "FLAVORS",
    "MPS_FALLBACK_ENV",
    "XPU_FALLBACK_ENV",
    "device_facts",
    "fallback_evidence",
    "mps_fallback_ops",
    "prepare_environment",
    "rocm_evidence",
    "select_device",
    "sync_module",
    "warnings_of",
    "xpu_fallback_ops",
]

FLAVORS = ("rocm", "xpu", "mps")
MPS_FALLBACK_ENV = "PYTORCH_ENABLE_MPS_FALLBACK"
XPU_FALLBACK_ENV = "PYTORCH_ENABLE_XPU_FALLBACK"
XPU_DEBUG_ENV = "PYTORCH_DEBUG_XPU_FALLBACK"
# aten/src/ATen/mps/MPSFallback.mm: TORCH_WARN_ONCE("The operator '<op>' is not currently
# supported on the MPS backend and will fall back to run on the CPU. ...")
_MPS_FALLBACK = re.compile(
    r"The operator '(?P<op>[^']+)' is not currently supported on the MPS backend and will "
    r"fall back to run on the CPU"
)
# torch-xpu-ops' XPUFallback.template: with PYTORCH_DEBUG_XPU_FALLBACK=1, TORCH_WARN("The
# operator '<op> on the XPU backend is falling back to run on the CPU.") (its quote is never
# closed); without it, one TORCH_WARN_ONCE("Aten Op fallback from XPU to CPU happen(d)s. ...").
_XPU_FALLBACK = re.compile(
    r"The operator '(?P<op>[^' ]+)'? on the XPU backend is falling back to run on the CPU"
)
_XPU_FALLBACK_UNNAMED = re.compile(r"Aten Op fallback from XPU to CPU happen")


def prepare_environment(flavor: str) -> None:
    """Set before torch is imported: XPU cells name each op that falls back to the CPU."""
    if flavor == "xpu":
        os.environ.setdefault(XPU_DEBUG_ENV, "1")


def sync_module(torch: Any, flavor: str) -> Any:
    """The torch module whose ``synchronize`` waits for the device: ``torch.cuda`` on ROCm
    (HIP answers to the cuda API), ``torch.xpu``, ``torch.mps``."""
    return {"rocm": torch.cuda, "xpu": torch.xpu, "mps": torch.mps}[flavor]


def _rocm(torch: Any, version: str, accelerator: Dict[str, Any]) -> Tuple[Any, str]:
    hip = getattr(torch.version, "hip", None)
    if not hip:
        raise DeviceMissing(
            f"torch {version} is not a ROCm build (torch.version.hip is None); the rocm cell "
            "needs PyTorch's ROCm wheel (its lock names PyTorch's rocm index)"
        )
    if not torch.cuda.is_available():
        raise DeviceMissing(
            f"torch {version} (HIP {hip}) sees no AMD GPU; check /dev/kfd and /dev/dri, the "
            "render group, and HIP_VISIBLE_DEVICES"
        )
    arch = str(getattr(torch.cuda.get_device_properties(0), "gcnArchName", "") or "")
    check_gfx(arch, accelerator)
    name = torch.cuda.get_device_name(0)
    return torch.device("cuda", 0), (f"{name} ({gfx_of(arch)})" if arch else name)


def _xpu(torch: Any, version: str) -> Tuple[Any, str]:
    xpu = getattr(torch, "xpu", None)
    if xpu is None:
        raise DeviceMissing(
            f"torch {version} has no torch.xpu (Intel GPUs need torch 2.5 or newer)"
        )
    if not xpu.is_available():
        built = bool(getattr(getattr(torch, "_C", None), "_has_xpu", False))
        raise DeviceMissing(
            f"torch {version} sees no Intel GPU (torch.xpu.is_available() is False; built "
            f"with XPU: {built}); use PyTorch's xpu wheel and check /dev/dri and the render group"
        )
    return torch.device("xpu", 0), str(xpu.get_device_name(0))


def _mps(torch: Any, version: str) -> Tuple[Any, str]:
    backend = torch.backends.mps
    if not backend.is_available():
        raise DeviceMissing(
            f"torch {version} sees no MPS device (torch.backends.mps.is_built() is "
            f"{backend.is_built()}, is_available() is False); MPS needs a macOS build of torch "
            f"on Apple silicon, and this is {platform.system()} on {platform.machine()}"
        )
    chip = _apple_chip()
    return torch.device("mps"), chip or "Apple silicon"


def _apple_chip() -> str:
    """The chip's name (``Apple M2 Pro``) from sysctl, for device_match; "" if unreadable."""
    import subprocess

    try:
        out = subprocess.run(
            ["sysctl", "-n", "machdep.cpu.brand_string"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.strip()


def select_device(
    torch: Any, flavor: str, version: str, accelerator: Dict[str, Any]
) -> Tuple[Any, str]:
    """(device, device name) for a ROCm, XPU or MPS cell; :class:`DeviceMissing` in one
    sentence where this torch or this machine has none."""
    if flavor == "rocm":
        return _rocm(torch, version, accelerator)
    if flavor == "xpu":
        return _xpu(torch, version)
    if flavor == "mps":
        return _mps(torch, version)
    raise DeviceMissing(f"unknown flavor {flavor!r} for torch")


def device_facts(torch: Any, flavor: str) -> Dict[str, Any]:
    """What env.json records of a ROCm, XPU or MPS device beside the common facts."""
    facts: Dict[str, Any] = {}
    if flavor == "rocm":
        props = torch.cuda.get_device_properties(0)
        facts["hip_runtime"] = torch.version.hip
        facts["gcn_arch"] = getattr(props, "gcnArchName", None)
        facts["device_count"] = torch.cuda.device_count()
        facts["visible_devices"] = _env("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")
    elif flavor == "xpu":
        props = torch.xpu.get_device_properties(0)
        facts["device_count"] = torch.xpu.device_count()
        facts["xpu_driver"] = getattr(props, "driver_version", None)
        facts["visible_devices"] = _env("ZE_AFFINITY_MASK", "ONEAPI_DEVICE_SELECTOR")
        facts["xpu_fallback"] = _env(XPU_FALLBACK_ENV, XPU_DEBUG_ENV)
    elif flavor == "mps":
        facts["device_count"] = 1
        facts["macos"] = platform.mac_ver()[0] or None
        facts["mps_fallback"] = os.environ.get(MPS_FALLBACK_ENV)
    return facts


def _env(*names: str) -> Dict[str, str]:
    return {n: os.environ[n] for n in names if n in os.environ}


def mps_fallback_ops(messages: List[str]) -> List[Tuple[str, str]]:
    """(kind, op) for each MPS CPU-fallback warning among ``messages``."""
    return [("cpu_fallback", m.group("op")) for m in map(_MPS_FALLBACK.search, messages) if m]


def xpu_fallback_ops(messages: List[str]) -> List[Tuple[str, str]]:
    """(kind, op) for each XPU CPU-fallback warning; an unnamed op where the debug switch
    was off (torch then warns once, without the op's name)."""
    found = [("cpu_fallback", m.group("op")) for m in map(_XPU_FALLBACK.search, messages) if m]
    if not found and any(_XPU_FALLBACK_UNNAMED.search(m) for m in messages):
        found.append(("cpu_fallback", f"an aten op (set {XPU_DEBUG_ENV}=1 to name it)"))
    return found


def fallback_evidence(
    torch: Any,
    flavor: str,
    sync: Callable[[Any], None],
    fn: Callable[..., Any],
    args: Tuple[Any, ...],
    kwargs: Dict[str, Any],
    repeatable: bool,
) -> Dict[str, Any]:
    """The ops one more call ran on the CPU through MPS's or XPU's fallback, from torch's
    warnings. torch warns once per op and process, so warn-always is on for the probe's
    call, and set back after it."""
    probe = f"torch-{flavor}-fallback"
    parse = mps_fallback_ops if flavor == "mps" else xpu_fallback_ops
    switch = MPS_FALLBACK_ENV if flavor == "mps" else XPU_FALLBACK_ENV
    enabled = os.environ.get(switch, "") not in ("", "0")
    extra = {"fallback_enabled": enabled}
    if flavor == "mps" and not enabled:
        # An op without an MPS kernel raises instead: the case fails, nothing runs elsewhere.
        return fallback.evidence(
            probe, flavor, [], note=f"{switch} is off: no op can fall back", extra=extra
        )
    if not repeatable:
        return fallback.unseen(probe, flavor, "a call that changes state is not run again")
    messages = warnings_of(torch, lambda: sync(fn(*args, **kwargs)))
    return fallback.evidence(probe, flavor, parse(messages), extra=extra)


def warnings_of(torch: Any, call: Callable[[], Any]) -> List[str]:
    """The warnings ``call`` raises, torch's warn-once ones included every time (torch's
    warn-always switch is on for the call and set back after it)."""
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
    finally:
        torch.set_warn_always(before)
    return [str(w.message) for w in caught]


def rocm_evidence(
    torch: Any,
    sync: Callable[[Any], None],
    fn: Callable[..., Any],
    args: Tuple[Any, ...],
    kwargs: Dict[str, Any],
    repeatable: bool,
) -> Dict[str, Any]:
    """The CUDA profiler probe as ROCm builds run it (through HIP and roctracer): host round
    trips in the copies of one more call. Its event names were read as CUDA's are; whether
    HIP's match them was not checked on AMD hardware, and the note says so."""
    probe = "torch-rocm-profiler"
    if not repeatable:
        return fallback.unseen(probe, "rocm", "a call that changes state is not run again")
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        sync(fn(*args, **kwargs))
    events = sorted(prof.events(), key=lambda e: e.time_range.start)
    return fallback.evidence(
        probe,
        "rocm",
        fallback.torch_cuda_host_work(str(e.name) for e in events),
        note="copies read by CUDA's event names; not yet checked against HIP's on AMD hardware",
    )
