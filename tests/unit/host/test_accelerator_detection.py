"""Detection of AMD, Intel, Apple and TPU hardware on device trees and vendor tools the tests
make: a made-up sysfs/dev root and fake `amd-smi`, `rocm-smi`, `xpu-smi`, `sycl-ls`,
`system_profiler` and `nvidia-smi` scripts on a PATH of their own. Present, absent, and a
model that does not match its id, each ending in the sentence a user sees."""

from __future__ import annotations

import http.server
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from portbench.accelerators import (
    get_accelerator,
    is_present,
    require_present,
    require_profile,
)
from portbench.detect import HostDevices
from portbench.detect.amd import gfx_name
from portbench.errors import AcceleratorMissing, UsageError

MI300X_AMD_SMI = [
    {
        "gpu": 0,
        "asic": {
            "market_name": "AMD Instinct MI300X",
            "vendor_id": "0x1002",
            "device_id": "0x74a1",
            "target_graphics_version": "gfx942",
        },
    }
]


def _tool(bin_dir: Path, name: str, stdout: str, status: int = 0) -> None:
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / f"{name}.out").write_text(stdout)
    script = bin_dir / name
    script.write_text(f'#!/bin/sh\ncat "{bin_dir / (name + ".out")}"\nexit {status}\n')
    script.chmod(0o755)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _kfd_gpu(root: Path, node: int, target_version: int, device_id: int = 0) -> None:
    _write(
        root / "sys/class/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 64\nsimd_count 0\n"
    )
    _write(
        root / f"sys/class/kfd/kfd/topology/nodes/{node}/properties",
        f"cpu_cores_count 0\nsimd_count 1216\ngfx_target_version {target_version}\n"
        f"vendor_id 4098\ndevice_id {device_id}\ndrm_render_minor 128\n",
    )
    _write(root / "dev/kfd", "")


def _devices(tmp_path: Path, **kwargs: object) -> HostDevices:
    options: dict[str, object] = {
        "root": tmp_path / "root",
        "path": str(tmp_path / "bin"),
        "env": {},
        "system": "Linux",
        "machine": "x86_64",
        "metadata_url": None,
    }
    options.update(kwargs)
    (tmp_path / "root").mkdir(exist_ok=True)
    (tmp_path / "bin").mkdir(exist_ok=True)
    return HostDevices(**options)  # type: ignore[arg-type]


def _present(ident: str, devices: HostDevices) -> bool:
    return is_present(get_accelerator(ident), devices)[0]


# -- ROCm -------------------------------------------------------------------------------


def test_gfx_targets_decode_as_rocm_names_them() -> None:
    assert gfx_name(90402) == "gfx942"
    assert gfx_name(90010) == "gfx90a"
    assert gfx_name(90008) == "gfx908"
    assert gfx_name(110501) == "gfx1151"


def test_an_mi300x_named_by_amd_smi_is_rocm_and_rocm_mi300x_only(tmp_path: Path) -> None:
    _kfd_gpu(tmp_path / "root", 1, 90402, 0x74A1)
    _tool(tmp_path / "bin", "amd-smi", json.dumps(MI300X_AMD_SMI))
    devices = _devices(tmp_path)
    assert is_present(get_accelerator("rocm-mi300x"), devices) == (
        True,
        "AMD Instinct MI300X (gfx942)",
    )
    assert _present("rocm", devices)
    # Same gfx target, another model: the name tells them apart.
    assert not _present("rocm-mi325x", devices)
    assert not _present("rocm-mi250", devices)
    with pytest.raises(AcceleratorMissing) as caught:
        require_present(get_accelerator("rocm-mi250"), devices)
    message = str(caught.value)
    assert "names AMD Instinct MI250 / MI250X (gfx90a)" in message
    assert "has another model (AMD GPUs found: AMD Instinct MI300X (gfx942))" in message
    assert message.endswith("rocm-mi300x, or the generic 'rocm'")
    assert "\n" not in message


def test_rocm_smi_names_the_gpus_where_amd_smi_fails(tmp_path: Path) -> None:
    _kfd_gpu(tmp_path / "root", 2, 90010)
    _tool(tmp_path / "bin", "amd-smi", "", status=1)
    rocm_smi = {
        "card0": {
            "Card Series": "AMD Instinct MI250X",
            "Card Model": "0x740c",
            "Card Vendor": "Advanced Micro Devices, Inc. [AMD/ATI]",
            "GFX Version": "gfx90a",
        }
    }
    _tool(tmp_path / "bin", "rocm-smi", json.dumps(rocm_smi))
    devices = _devices(tmp_path)
    assert devices.amd.named_by == "rocm-smi"
    assert _present("rocm-mi250", devices)
    assert not _present("rocm-mi210", devices)  # gfx90a too, but not its name


def test_without_a_vendor_tool_a_shared_gfx_target_does_not_name_the_model(tmp_path: Path) -> None:
    _kfd_gpu(tmp_path / "root", 1, 90010)
    devices = _devices(tmp_path)
    assert _present("rocm", devices)
    present, found = is_present(get_accelerator("rocm-mi250"), devices)
    assert not present
    assert "gfx90a is the target of rocm-mi210 and rocm-mi250 alike" in found
    # A gfx target one model alone has is enough on the host; the cell checks the name.
    _kfd_gpu(tmp_path / "other", 1, 90008)
    alone = _devices(tmp_path, root=tmp_path / "other")
    assert is_present(get_accelerator("rocm-mi100"), alone) == (
        True,
        "gfx908 (model not named: amd-smi/rocm-smi absent; checked in the cell)",
    )


def test_no_amd_gpu_and_a_missing_kfd_device_are_said(tmp_path: Path) -> None:
    devices = _devices(tmp_path)
    with pytest.raises(AcceleratorMissing) as caught:
        require_present(get_accelerator("rocm"), devices)
    assert str(caught.value) == (
        "accelerator 'rocm' is not present on this machine (no AMD GPU (no GPU node in KFD's "
        "topology, and amd-smi/rocm-smi name none)); run this cell on a machine that has it, "
        "or pick one that is here (`portbench doctor` lists them)"
    )
    _kfd_gpu(tmp_path / "root", 1, 90402)
    os.remove(tmp_path / "root/dev/kfd")
    present, found = is_present(get_accelerator("rocm"), _devices(tmp_path))
    assert not present and "/dev/kfd is missing" in found


# -- Intel XPU --------------------------------------------------------------------------


def _render_node(root: Path, minor: int, vendor: str, device: str, driver: str) -> None:
    device_dir = root / f"sys/devices/pci0000:00/0000:0{minor - 127}:00.0"
    _write(device_dir / "vendor", vendor + "\n")
    _write(device_dir / "device", device + "\n")
    (root / f"sys/bus/pci/drivers/{driver}").mkdir(parents=True, exist_ok=True)
    (device_dir / "driver").symlink_to(root / f"sys/bus/pci/drivers/{driver}")
    node = root / f"sys/class/drm/renderD{minor}"
    node.mkdir(parents=True)
    (node / "device").symlink_to(device_dir)
    _write(root / f"dev/dri/renderD{minor}", "")


def test_an_intel_max_1550_is_told_by_its_pci_id(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _render_node(root, 128, "0x8086", "0x0bd5", "i915")
    _render_node(root, 129, "0x1002", "0x74a1", "amdgpu")  # an AMD card is no XPU
    devices = _devices(tmp_path)
    assert len(devices.intel.gpus) == 1
    assert _present("xpu", devices) and _present("xpu-max1550", devices)
    with pytest.raises(AcceleratorMissing, match=r"xpu-max1550, or the generic 'xpu'$"):
        require_present(get_accelerator("xpu-max1100"), devices)


def test_xpu_smi_and_sycl_ls_name_intel_gpus(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _render_node(root, 128, "0x8086", "0x0bff", "xe")  # an id the table does not list
    discovery = {
        "device_list": [
            {
                "device_id": 0,
                "device_name": "Intel(R) Data Center GPU Max 1100",
                "pci_device_id": "0xbff",
                "vendor_name": "Intel(R) Corporation",
            }
        ]
    }
    _tool(tmp_path / "bin", "xpu-smi", json.dumps(discovery))
    devices = _devices(tmp_path)
    assert devices.intel.named_by == "xpu-smi"
    assert _present("xpu-max1100", devices) and not _present("xpu-a770", devices)
    os.remove(tmp_path / "bin/xpu-smi")
    _tool(
        tmp_path / "bin",
        "sycl-ls",
        "[opencl:cpu][opencl:0] Intel(R) OpenCL, Intel(R) Xeon(R) CPU 3.0 [2024.18]\n"
        "[level_zero:gpu][level_zero:0] Intel(R) Level-Zero, Intel(R) Arc(TM) A770 Graphics "
        "12.55.8 [1.3.29138]\n",
    )
    devices = _devices(tmp_path)
    assert devices.intel.named_by == "sycl-ls"
    assert _present("xpu-a770", devices) and not _present("xpu-max1100", devices)


def test_no_intel_gpu_is_said(tmp_path: Path) -> None:
    present, found = is_present(get_accelerator("xpu"), _devices(tmp_path))
    assert not present and found == "no Intel GPU (no render node driven by i915 or xe)"


# -- Apple MPS --------------------------------------------------------------------------


def test_mps_needs_macos_on_apple_silicon(tmp_path: Path) -> None:
    mps = get_accelerator("mps")
    assert is_present(mps, _devices(tmp_path)) == (False, "MPS needs macOS; this is Linux")
    intel_mac = _devices(tmp_path, system="Darwin", machine="x86_64")
    assert is_present(mps, intel_mac) == (
        False,
        "MPS needs Apple silicon (arm64); this Mac is x86_64",
    )
    profile = {"SPDisplaysDataType": [{"sppci_model": "Apple M2 Pro", "sppci_cores": "19"}]}
    _tool(tmp_path / "bin", "system_profiler", json.dumps(profile))
    mac = _devices(tmp_path, system="Darwin", machine="arm64")
    assert is_present(mps, mac) == (True, "Apple M2 Pro")


# -- TPU --------------------------------------------------------------------------------


def _tpu_chips(root: Path, device_id: str, chips: int = 4) -> None:
    for index in range(chips):
        _write(root / f"dev/accel{index}", "")
        pci = root / f"sys/bus/pci/devices/0000:00:0{index + 4}.0"
        _write(pci / "vendor", "0x1ae0\n")
        _write(pci / "device", device_id + "\n")


def test_tpu_generations_are_told_by_pci_id(tmp_path: Path) -> None:
    _tpu_chips(tmp_path / "root", "0x0063")
    devices = _devices(tmp_path)
    assert is_present(get_accelerator("tpu-v5e"), devices) == (True, "4 x TPU v5e (PCI id 0x0063)")
    assert _present("tpu", devices) and not _present("tpu-v6e", devices)
    with pytest.raises(AcceleratorMissing) as caught:
        require_present(get_accelerator("tpu-v6e"), devices)
    assert str(caught.value) == (
        "accelerator 'tpu-v6e' names TPU v6e (Trillium), but this machine has another model "
        "(TPU chips found: 4 x TPU v5e (PCI id 0x0063)); run the cell with the id of the "
        "hardware present: tpu-v5e, or the generic 'tpu'"
    )


@pytest.fixture
def metadata_server() -> Iterator[str]:
    """A GCE metadata server on loopback that answers the accelerator type."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            ok = self.headers.get("Metadata-Flavor") == "Google"
            body = b"v3-8" if ok else b""
            self.send_response(200 if ok else 403)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/computeMetadata/v1/instance/attributes/accelerator-type"
    server.shutdown()
    server.server_close()


def test_v2_and_v3_share_a_pci_id_and_the_accelerator_type_tells_them_apart(
    tmp_path: Path, metadata_server: str
) -> None:
    _tpu_chips(tmp_path / "root", "0x0027")
    unsure = _devices(tmp_path)
    assert _present("tpu-v2", unsure) and _present("tpu-v3", unsure)
    asked = _devices(tmp_path, metadata_url=metadata_server)
    assert is_present(get_accelerator("tpu-v3"), asked) == (
        True,
        "4 x TPU v3 (accelerator type v3-8)",
    )
    assert not _present("tpu-v2", asked)
    declared = _devices(
        tmp_path, env={"TPU_ACCELERATOR_TYPE": "v2-8"}, metadata_url=metadata_server
    )
    assert _present("tpu-v2", declared) and not _present("tpu-v3", declared)


def test_tpu_chips_of_unknown_generation_satisfy_only_the_generic_id(tmp_path: Path) -> None:
    for index in range(2):
        _write(tmp_path / f"root/dev/accel{index}", "")
    devices = _devices(tmp_path)
    assert _present("tpu", devices)
    present, found = is_present(get_accelerator("tpu-v4"), devices)
    assert not present
    assert found.endswith(
        "no Google PCI ids in sysfs and no accelerator type (set TPU_ACCELERATOR_TYPE))"
    )
    with_type = _devices(tmp_path, env={"TPU_ACCELERATOR_TYPE": "v5litepod-8"})
    assert _present("tpu-v5e", with_type)


def test_vfio_devices_and_an_npu_are_no_tpu(tmp_path: Path) -> None:
    # A host passing devices through to VMs has /dev/vfio/N; a laptop's Intel NPU is
    # /dev/accel/accel0. Neither is a TPU without Google's PCI ids or an accelerator type.
    _write(tmp_path / "root/dev/vfio/0", "")
    _write(tmp_path / "root/dev/accel/accel0", "")
    present, found = is_present(get_accelerator("tpu"), _devices(tmp_path))
    assert (present, found) == (False, "no TPU devices under /dev/accel* or /dev/vfio")
    declared = _devices(tmp_path, env={"TPU_ACCELERATOR_TYPE": "v3-8"})
    assert _present("tpu-v3", declared)  # a v3 VM whose sysfs is hidden: the type says so


# -- NVIDIA, through the same path ------------------------------------------------------


def test_a_gpu_h100_cell_on_an_h200_names_the_id_that_fits(tmp_path: Path) -> None:
    _tool(
        tmp_path / "bin",
        "nvidia-smi",
        "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n",
    )
    devices = _devices(tmp_path)
    with pytest.raises(AcceleratorMissing) as caught:
        require_present(get_accelerator("gpu-h100"), devices)
    assert str(caught.value).endswith(
        "has another model (GPUs found: NVIDIA H200); run the cell with the id of the "
        "hardware present: gpu-h200, or the generic 'gpu'"
    )


# -- profiles ---------------------------------------------------------------------------


def test_hardware_newer_than_a_profiles_runtime_refuses_that_profile() -> None:
    with pytest.raises(UsageError) as caught:
        require_profile(get_accelerator("tpu-v5e"), "paper")
    assert str(caught.value) == (
        "accelerator 'tpu-v5e' cannot run profile 'paper' (the paper-era TPU runtimes "
        "(libtpu of 2022-2023) predate this generation); use --profile current"
    )
    require_profile(get_accelerator("tpu-v5e"), "current")
    require_profile(get_accelerator("rocm-mi300x"), "host")
    require_profile(get_accelerator("tpu-v3"), "paper")
