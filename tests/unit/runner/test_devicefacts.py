"""env.json's accelerator facts beyond the framework's: the amdgpu driver, the variables
that pick the devices a cell sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from portbench_runner.devicefacts import amdgpu_driver, device_facts


def test_the_amdgpu_driver_version_is_read_where_amds_driver_wrote_it(tmp_path: Path) -> None:
    assert amdgpu_driver(str(tmp_path)) is None
    version = tmp_path / "sys/module/amdgpu/version"
    version.parent.mkdir(parents=True)
    version.write_text("6.10.5\n")
    assert amdgpu_driver(str(tmp_path)) == "6.10.5"


def test_each_flavor_records_the_variables_that_pick_its_devices(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "1")
    monkeypatch.setenv("ZE_AFFINITY_MASK", "0.1")
    monkeypatch.setenv("TPU_ACCELERATOR_TYPE", "v5litepod-8")
    assert device_facts("rocm")["device_env"] == {"HIP_VISIBLE_DEVICES": "1"}
    assert device_facts("xpu")["device_env"] == {"ZE_AFFINITY_MASK": "0.1"}
    assert device_facts("tpu") == {"device_env": {"TPU_ACCELERATOR_TYPE": "v5litepod-8"}}
    assert device_facts("cpu") == {}  # a CPU cell's env.json is as it was
