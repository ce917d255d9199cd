"""A ROCm id's gfx target travels in the plan to the adapters, which check the one the
framework reports against it (tests/framework/test_accelerator_adapters.py); other ids'
plans carry no such key."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from conftest import make_plan

from portbench.accelerators import get_accelerator
from portbench.plan import plan_accelerator
from portbench_runner.contract import PlanAccelerator, load_plan
from portbench_runner.worker import Worker


def test_a_rocm_models_plan_names_its_gfx_target_and_reads_back() -> None:
    planned = plan_accelerator(get_accelerator("rocm-mi300x"))
    assert (planned.id, planned.flavor, planned.gfx) == ("rocm-mi300x", "rocm", "gfx942")
    written = json.loads(json.dumps(planned.to_json()))
    assert written["gfx"] == "gfx942"
    assert PlanAccelerator.from_json(written, "plan.json: accelerator") == planned


def test_ids_without_a_gfx_target_write_the_plan_as_before() -> None:
    for ident in ("cpu", "gpu-t4", "rocm", "xpu-max1550", "tpu-v5e"):
        written = plan_accelerator(get_accelerator(ident)).to_json()
        assert set(written) == {"id", "flavor", "device_match", "generic"}, ident


def test_the_worker_hands_the_gfx_target_to_its_adapter(tmp_path: Path) -> None:
    plan = load_plan(str(make_plan(tmp_path, {"demo": "def body(ctx):\n    pass\n"})))
    rocm = plan_accelerator(get_accelerator("rocm-mi250"))
    read, write = os.pipe()
    try:
        worker = Worker(replace(plan, accelerator=rocm), pipe_fd=write)
        # The python adapter has no ROCm device: the worker says so and stops, after it has
        # made the adapter with the accelerator's names.
        assert worker.start(collect=False) is False
        said = os.read(read, 65536).decode()
    finally:
        os.close(read)
        os.close(write)
    assert "runs on the cpu only, not 'rocm'" in said
    assert worker.adapter.accelerator["gfx"] == "gfx90a"
    assert worker.adapter.accelerator["id"] == "rocm-mi250"
