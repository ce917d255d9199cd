"""Running a predicted cell: compiled as an observed cell of the same framework would be,
with the plan's ``prediction`` (target, platform, method, control), as a cell of its own
(its id; the CPU it runs on), and run on this machine's CPU in the environment its method
needs."""

from __future__ import annotations

import shlex
from dataclasses import replace

from rich.console import Console

from portbench_runner.contract import Plan, PredictionControl, PredictionMethod

from ..accelerators import Accelerator, get_accelerator
from ..cellrun import BenchRequest, CellRunResult, choose_backend, execute_cell, new_run_dir
from ..errors import UsageError
from ..manifest import FRAMEWORKS, load_manifest
from ..plan import CellSpec, compile_plan, plan_accelerator
from ..profiles import check_profile
from ..rules import load_rules
from ..writable import make_dir, require_writable
from .targets import PredictSpec, predict_spec

__all__ = ["TF_XLA_CASES_PER_WORKER", "predicted_plan", "run_predicted_cell"]

TF_XLA_CASES_PER_WORKER = 100


def predicted_plan(
    request: BenchRequest, spec: PredictSpec, backend_name: str
) -> tuple[CellSpec, Plan]:
    """The cell and plan of a predicted cell: what runs is the CPU (so the backends pick the
    CPU's container options), what the cell is called and predicts is the target."""
    cpu = get_accelerator("cpu")
    virtual = Accelerator(
        id=spec.cell_accelerator, flavor="cpu", device_match="", generic="cpu", detect="always"
    )
    cell = CellSpec(request.framework, virtual, request.profile, backend_name)
    # torch_xla cases run on XLA's CPU client; the CPU twin in the same worker is the control.
    options = replace(
        request.options,
        differential=spec.control is PredictionControl.CPU_TWIN,
        prediction=spec.settings(),
    )
    if request.framework == "tensorflow" and spec.method is PredictionMethod.XLA_CPU:
        # Every case compiles its call with XLA once more and TensorFlow keeps each
        # executable: a fresh worker every few hundred cases bounds the memory (a worker
        # held 6 GB after 100 such cases).
        options = replace(options, cases_per_worker=TF_XLA_CASES_PER_WORKER)
    plan = compile_plan(
        cell, load_manifest(request.framework), load_rules(request.framework), options
    )
    rerun = shlex.join(
        [
            "portbench",
            "bench",
            "--framework",
            request.framework,
            "--accelerator",
            spec.target,
            "--predict",
            "--profile",
            request.profile,
            "--backend",
            backend_name,
        ]
    )
    return cell, replace(plan, accelerator=plan_accelerator(cpu), rerun_prefix=rerun)


def run_predicted_cell(request: BenchRequest, console: Console) -> CellRunResult:
    """Run one predicted cell (a new one: a stopped predicted cell is run anew)."""
    if request.framework not in FRAMEWORKS:
        raise UsageError(
            f"unknown framework '{request.framework}' (known: {', '.join(FRAMEWORKS)})"
        )
    if request.resume is not None:
        raise UsageError(
            "--predict cannot go with --resume; run the predicted cell anew (it is quick)"
        )
    spec = predict_spec(request.framework, request.accelerator, request.profile)
    check_profile(request.profile, request.framework, "cpu")
    backend = choose_backend(
        request.backend, request.profile, console, request.python, request.build
    )
    cell, plan = predicted_plan(request, spec, backend.name)
    cell_dir = (request.run_dir or new_run_dir()) / cell.dir_name
    if cell_dir.exists():
        raise UsageError(f"{cell_dir} exists already; pass another --run-dir")
    require_writable(cell_dir, "pass --run-dir with a directory you can write")
    prepared = backend.prepare(request.framework, spec.env_flavor, request.profile)
    plan = plan.in_environment(prepared.cell_environment)
    make_dir(cell_dir, "pass --run-dir with a directory you can write")
    console.print(
        f"[bold]predicting[/] {request.framework} on {spec.target} ({spec.method}, platform "
        f"{spec.platform}) on this machine's CPU: a predicted pass means the call "
        + (
            "runs on XLA's CPU client with no aten:: fallback"
            if spec.method is PredictionMethod.XLA_CPU and request.framework == "torch"
            else "lowers or compiles with no host work"
        )
        + ", never that it passes its check on the device"
    )
    return execute_cell(cell.cell_id, backend, prepared, plan, cell_dir, False, console)
