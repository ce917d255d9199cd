"""The differential check: an accelerator case beside its CPU twin, run in the same worker.

No accelerator is needed: the "device" is the python adapter renamed, and the case body
returns something else there, so every path (equal, drifting, CPU-only failure, failure on
both) is taken for real by the worker's code.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from conftest import make_plan, read_jsonl, run_supervisor, validate

from portbench.outcomes import function_outcome
from portbench.results.model import CaseRecord
from portbench_runner.adapters.python_adapter import PythonAdapter
from portbench_runner.contract import Plan, load_plan
from portbench_runner.differential import compare_leaves
from portbench_runner.worker import CaseFiles, Worker

CASES = """
import numpy as np
from portbench_runner.api import sweep

@sweep("{kind}", kind=["same", "drift", "cpu-only-fails", "both-fail", "random"])
def body(ctx, kind):
    here = ctx.accelerator != "cpu"

    def compute():
        if kind == "cpu-only-fails" and not here:
            raise RuntimeError("no CPU kernel")
        if kind == "both-fail":
            raise RuntimeError("no kernel anywhere")
        if kind in ("drift", "random") and here:
            return np.array([2.0, 3.0])
        return np.array([1.0, 3.0])

    if kind == "random":
        ctx.not_comparable("device generators differ")
    out = ctx.measure(compute)
    ctx.check(out.shape == (2,), "two values")  # no NumPy twin: only a property
"""


def _worker(tmp_path: Path, differential: bool = True) -> tuple[Worker, CaseFiles, Plan]:
    plan = load_plan(str(make_plan(tmp_path, {"demo": CASES})))
    plan = replace(
        plan,
        differential=differential,
        accelerator=replace(plan.accelerator, id="fake-gpu"),
    )
    worker = Worker(plan, pipe_fd=-1)
    device = PythonAdapter("cpu", plan.accelerator.to_json())
    device.load()
    worker.adapter = device
    return worker, CaseFiles(plan.manifest_root, "python"), plan


def _run(tmp_path: Path, differential: bool = True) -> dict[str, Any]:
    """Each case's result, as JSON (what the worker sends)."""
    worker, files, plan = _worker(tmp_path, differential)
    function = plan.functions[0]
    return {case.name: worker.run_case(function, case, files).to_json() for case in function.cases}


def test_each_path_of_the_twin(tmp_path: Path) -> None:
    out = _run(tmp_path)
    same = out["same"]
    assert same["outcome"] == "pass"
    assert same["cpu_reference"]["compared"] is True
    assert same["cpu_reference"]["max_abs_diff"] == 0.0
    # Passed its own property check, but computes something else than the CPU: a failure.
    drift = out["drift"]
    assert (drift["outcome"], drift["stage"], drift["category"]) == ("fail", "check", "precision")
    assert "differ from the CPU's" in drift["error"]["message"]
    assert drift["timing"] is not None  # the device's timing, not the twin's
    # The device passes where the CPU fails: the device's verdict stands.
    cpu_only = out["cpu-only-fails"]
    assert cpu_only["outcome"] == "pass"
    assert cpu_only["cpu_reference"]["outcome"] == "fail"
    assert cpu_only["cpu_reference"]["stage"] == "call"
    both = out["both-fail"]
    assert both["outcome"] == "fail"
    assert both["cpu_reference"]["outcome"] == "fail"
    assert "no kernel anywhere" in both["cpu_reference"]["message"]
    random = out["random"]
    assert random["outcome"] == "pass"
    assert random["cpu_reference"]["compared"] is False
    assert "device generators differ" in random["cpu_reference"]["note"]


def test_no_twin_without_the_plan_asking(tmp_path: Path) -> None:
    out = _run(tmp_path, differential=False)
    assert all("cpu_reference" not in fields for fields in out.values())
    assert out["drift"]["outcome"] == "pass"  # nothing to hold it to


def test_compare_leaves_uses_the_case_tolerance_doubled_or_the_dtype_default() -> None:
    import numpy as np

    a, b = [np.array([1.0, 2.0])], [np.array([1.0, 2.02])]
    assert compare_leaves(a, b, (1e-2, 0.0))[0] is None  # 1 % each side of the reference
    assert compare_leaves(a, b, (1e-3, 0.0))[0] is not None
    # No case tolerance: bfloat16 output is held to bfloat16's default, float64 to its own.
    assert compare_leaves(a, b, None, ["bfloat16"])[0] is None
    assert compare_leaves(a, b, None, ["float64"])[0] is not None
    assert compare_leaves([np.array([1, 2])], [np.array([1, 3])], None)[0] is not None
    assert "shape" in str(compare_leaves([np.zeros(2)], [np.zeros(3)], None)[0])


def test_a_shared_failure_is_its_own_bucket_and_left_out_of_the_verdict() -> None:
    assert function_outcome(["cpu_too", "cpu_too", "skip"]) == "cpu_too"
    assert function_outcome(["cpu_too", "pass"]) == "pass"
    assert function_outcome(["cpu_too", "pass", "fail"]) == "partial"
    assert function_outcome(["skip"]) == "untested"


def test_the_record_carries_the_twin_end_to_end(tmp_path: Path) -> None:
    # A whole cell through supervisor and host writer, twin forced on the CPU (where it can
    # only agree with itself, so the failure-on-both path is what this shows).
    plan_path = make_plan(tmp_path, {"demo": CASES})
    plan = json.loads(plan_path.read_text())
    plan["differential"] = True
    plan_path.write_text(json.dumps(plan))
    run_dir = tmp_path / "run"
    proc = run_supervisor(plan_path, run_dir)
    assert proc.returncode == 0, proc.stderr
    records = {r["case_name"]: r for r in read_jsonl(run_dir / "results.jsonl")}
    for record in records.values():
        validate(record, "record")
    both = CaseRecord.from_json(records["both-fail"])
    assert both.fails_on_cpu
    assert both.cpu_reference is not None and both.cpu_reference.outcome == "fail"
    assert records["same"]["cpu_reference"]["compared"] is True
    assert not CaseRecord.from_json(records["same"]).fails_on_cpu


def test_the_cell_budget_reaches_each_case_as_a_warm_cap(tmp_path: Path) -> None:
    # A budget already spent: every case still runs and is checked, timed cold only, and its
    # record says under which cap. (This lives beside the twin's end-to-end test: both are
    # plan fields the supervisor and worker act on.)
    plan_path = make_plan(tmp_path, {"demo": CASES})
    plan = json.loads(plan_path.read_text())
    assert plan["cell_budget_s"] == 540.0  # the host's default
    plan["cell_budget_s"] = 1e-6
    plan_path.write_text(json.dumps(plan))
    run_dir = tmp_path / "run"
    proc = run_supervisor(plan_path, run_dir)
    assert proc.returncode == 0, proc.stderr
    records = read_jsonl(run_dir / "results.jsonl")
    assert len(records) == 5
    for record in records:
        validate(record, "record")
        CaseRecord.from_json(record)
    timed = [r for r in records if r["timing"] is not None]
    assert timed and all(r["timing"]["warm"] is None for r in timed)
    assert all(r["timing"]["warm_cap_s"] == 0.0 for r in timed)
    assert {r["case_name"]: r["outcome"] for r in records}["same"] == "pass"


def test_no_cap_without_a_budget(tmp_path: Path) -> None:
    plan_path = make_plan(tmp_path, {"demo": CASES})
    plan = json.loads(plan_path.read_text())
    plan["cell_budget_s"] = None
    plan_path.write_text(json.dumps(plan))
    run_dir = tmp_path / "run"
    assert run_supervisor(plan_path, run_dir).returncode == 0
    same = {r["case_name"]: r for r in read_jsonl(run_dir / "results.jsonl")}["same"]
    assert same["timing"]["warm"] is not None and "warm_cap_s" not in same["timing"]
