"""The accelerator table (images/accelerators.toml) and whether this machine has an id's hardware."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from .detect import HostDevices, host_devices
from .errors import AcceleratorMissing, UsageError
from .paths import images_dir

__all__ = [
    "DETECT",
    "FLAVORS",
    "Accelerator",
    "backend_for",
    "detect_gpus",
    "get_accelerator",
    "is_present",
    "load_accelerators",
    "require_present",
    "require_profile",
]

FLAVORS = ("cpu", "cuda", "rocm", "xpu", "mps", "tpu")
#: How the host looks for each id's hardware (images/accelerators.toml's ``detect``).
DETECT = ("always", "nvidia-smi", "rocm", "xpu", "mps", "tpu")


@dataclass(frozen=True)
class Accelerator:
    id: str
    flavor: str
    device_match: str
    generic: str
    detect: str
    container: dict[str, Any] = field(default_factory=dict)
    """Container options for the docker backend (device requests, device files, groups)."""
    skypilot: str = ""
    """What SkyPilot provisions for this id (``T4:1``, ``tpu-v3-8``); "" where no model is named."""
    model: str = ""
    """The hardware's name for messages and docs (``AMD Instinct MI300X``)."""
    gfx: str = ""
    """ROCm: the gfx target of the model (``gfx942``), read from KFD's topology."""
    pci_ids: tuple[int, ...] = ()
    """XPU: the PCI device ids of the model (sysfs), where no vendor tool names it."""
    generation: str = ""
    """TPU: the generation (``v5e``), from the accelerator type or PCI ids."""
    profiles: tuple[str, ...] = ()
    """The pinned profiles whose runtimes know this hardware; () for every profile."""
    profiles_why: str = ""
    tpu_runtime: str = ""
    """TPU: the TPU VM software version a cloud VM of this id is created with."""

    def to_plan(self) -> dict[str, Any]:
        plan = {
            "id": self.id,
            "flavor": self.flavor,
            "device_match": self.device_match,
            "generic": self.generic,
        }
        if self.gfx:  # the cell checks the gfx target the framework reports, too
            plan["gfx"] = self.gfx
        return plan

    def describe(self) -> str:
        """``AMD Instinct MI300X (gfx942)``: what the id names, for messages."""
        name = self.model or self.id
        return f"{name} ({self.gfx})" if self.gfx else name


def _row(path: Any, ident: str, row: dict[str, Any]) -> Accelerator:
    flavor = row.get("flavor")
    if flavor not in FLAVORS:
        raise UsageError(
            f"{path}: accelerator '{ident}' has flavor {flavor!r} (allowed: {', '.join(FLAVORS)})"
        )
    detect = row.get("detect", "always")
    if detect not in DETECT:
        raise UsageError(
            f"{path}: accelerator '{ident}' has detect {detect!r} (allowed: {', '.join(DETECT)})"
        )
    try:
        pci_ids = tuple(int(str(i), 16) for i in row.get("pci_ids", ()))
    except ValueError:
        raise UsageError(
            f"{path}: accelerator '{ident}' has a pci_ids entry that is not hexadecimal ('0x0bd5')"
        ) from None
    return Accelerator(
        id=ident,
        flavor=flavor,
        device_match=row.get("device_match", ""),
        generic=row.get("generic", ident),
        detect=detect,
        container=dict(row.get("container", {})),
        skypilot=str(row.get("skypilot", "")),
        model=str(row.get("model", "")),
        gfx=str(row.get("gfx", "")),
        pci_ids=pci_ids,
        generation=str(row.get("generation", "")),
        profiles=tuple(row.get("profiles", ())),
        profiles_why=str(row.get("profiles_why", "")),
        tpu_runtime=str(row.get("tpu_runtime", "")),
    )


def load_accelerators() -> dict[str, Accelerator]:
    path = images_dir() / "accelerators.toml"
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the accelerator table ({exc})") from None
    return {ident: _row(path, ident, row) for ident, row in table.items()}


def get_accelerator(ident: str) -> Accelerator:
    table = load_accelerators()
    if ident not in table:
        raise UsageError(f"unknown accelerator '{ident}' (known: {', '.join(table)})")
    return table[ident]


def detect_gpus() -> list[str]:
    """NVIDIA GPU names from ``nvidia-smi -L``; empty without a driver."""
    return host_devices().nvidia


def _named(pattern: str, name: str | None) -> bool:
    return not pattern or (name is not None and re.search(pattern, name, re.IGNORECASE) is not None)


def _nvidia(acc: Accelerator, devices: HostDevices) -> tuple[bool, str]:
    gpus = devices.nvidia
    if not gpus:
        return False, "no NVIDIA GPU (nvidia-smi is missing or lists none)"
    matching = [g for g in gpus if _named(acc.device_match, g)]
    if not matching:
        return False, f"GPUs found: {', '.join(gpus)}"
    return True, matching[0]


def _rocm(acc: Accelerator, devices: HostDevices) -> tuple[bool, str]:
    scan = devices.amd
    if not scan.gpus:
        return False, "no AMD GPU (no GPU node in KFD's topology, and amd-smi/rocm-smi name none)"
    seen = ", ".join(g.describe() for g in scan.gpus)
    if scan.problem:
        return False, f"AMD GPUs found: {seen}, but {scan.problem}"
    for gpu in scan.gpus:
        if acc.gfx and gpu.gfx != acc.gfx:
            continue
        if gpu.name is None and acc.device_match:
            sharing = [
                a.id
                for a in load_accelerators().values()
                if a.gfx == gpu.gfx and a.flavor == "rocm"
            ]
            if len(sharing) > 1:
                return False, (
                    f"AMD GPUs found: {seen}; {gpu.gfx} is the target of {' and '.join(sharing)} "
                    "alike and no amd-smi or rocm-smi names the model"
                )
            # The one model of this gfx target: the cell checks the name the framework reports.
            return (
                True,
                f"{gpu.gfx} (model not named: amd-smi/rocm-smi absent; checked in the cell)",
            )
        if _named(acc.device_match, gpu.name):
            return True, gpu.describe()
    return False, f"AMD GPUs found: {seen}"


def _xpu(acc: Accelerator, devices: HostDevices) -> tuple[bool, str]:
    scan = devices.intel
    if not scan.gpus:
        return False, "no Intel GPU (no render node driven by i915 or xe)"
    for gpu in scan.gpus:
        by_pci = bool(acc.pci_ids) and gpu.pci_device in acc.pci_ids
        if not acc.pci_ids and not acc.device_match:
            return True, gpu.describe()
        if by_pci or (
            gpu.name is not None and acc.device_match and _named(acc.device_match, gpu.name)
        ):
            return True, gpu.describe()
    return False, f"Intel GPUs found: {', '.join(g.describe() for g in scan.gpus)}"


def _tpu(acc: Accelerator, devices: HostDevices) -> tuple[bool, str]:
    scan = devices.tpu
    if not scan.chips:
        return False, scan.describe()
    if not acc.generation or acc.generation in scan.generations:
        return True, scan.describe()
    return False, f"TPU chips found: {scan.describe()}"


def is_present(accelerator: Accelerator, devices: HostDevices | None = None) -> tuple[bool, str]:
    """(present, what was found) for the hardware an accelerator id names; ``devices`` is
    this machine unless given (tests give a made-up device tree)."""
    devices = devices or host_devices()
    if accelerator.detect == "always":
        return True, "cpu"
    if accelerator.detect == "nvidia-smi":
        return _nvidia(accelerator, devices)
    if accelerator.detect == "rocm":
        return _rocm(accelerator, devices)
    if accelerator.detect == "xpu":
        return _xpu(accelerator, devices)
    if accelerator.detect == "mps":
        return devices.apple.present, devices.apple.found
    if accelerator.detect == "tpu":
        return _tpu(accelerator, devices)
    return False, f"unknown detection method {accelerator.detect!r}"


def require_present(accelerator: Accelerator, devices: HostDevices | None = None) -> None:
    """Raise :class:`AcceleratorMissing` in one sentence when the id's hardware is not here:
    absent altogether, or of another model than the id names (with the ids that fit)."""
    present, found = is_present(accelerator, devices)
    if present:
        return
    table = load_accelerators()
    generic = table.get(accelerator.generic)
    if generic is not None and generic.id != accelerator.id and is_present(generic, devices)[0]:
        fitting = [
            a.id
            for a in table.values()
            if a.flavor == accelerator.flavor and a.id != a.generic and is_present(a, devices)[0]
        ]
        instead = (
            f"{' or '.join(fitting)}, or the generic '{generic.id}'"
            if fitting
            else f"the generic '{generic.id}'"
        )
        raise AcceleratorMissing(
            f"accelerator '{accelerator.id}' names {accelerator.describe()}, but this machine "
            f"has another model ({found}); run the cell with the id of the hardware present: {instead}"
        )
    raise AcceleratorMissing(
        f"accelerator '{accelerator.id}' is not present on this machine ({found}); "
        "run this cell on a machine that has it, or pick one that is here "
        "(`portbench doctor` lists them)"
    )


def require_profile(accelerator: Accelerator, profile: str) -> None:
    """Refuse a pinned profile whose runtimes predate the id's hardware (TPU v5e on the
    paper profile's 2022 libtpu), in one sentence; ``host`` is whatever is installed."""
    if not accelerator.profiles or profile == "host" or profile in accelerator.profiles:
        return
    why = f" ({accelerator.profiles_why})" if accelerator.profiles_why else ""
    raise UsageError(
        f"accelerator '{accelerator.id}' cannot run profile '{profile}'{why}; use --profile "
        f"{' or '.join(accelerator.profiles)}"
    )


def backend_for(accelerator: Accelerator, requested: str, profile: str) -> str:
    """The backend to ask for: MPS has no containers (macOS's GPU is not reachable from
    one), so ``auto`` means venv there and ``docker`` is refused in one sentence."""
    if accelerator.flavor != "mps" or profile == "host":
        return requested
    if requested == "docker":
        raise UsageError(
            f"accelerator '{accelerator.id}' runs on macOS, where no container reaches the "
            "GPU; use --backend venv (the default there) or --profile host"
        )
    return "venv" if requested == "auto" else requested
