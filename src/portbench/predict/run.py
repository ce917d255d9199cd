"""Running a predicted cell: compiled as an observed cell of the same framework would be,
with the plan's ``prediction`` (target, platform, method, control), as a cell of its own
(its id; the CPU it runs on), and run on this machine's CPU in the environment its method
needs. Several JAX targets (``--accelerator tpu,cuda,rocm``) are one pass: one cell per
target, the control run once and each case lowered for every platform in the same worker."""

from __future__ import annotations

import shlex
from dataclasses import replace

from rich.console import Console

from portbench_runner.contract import Plan, PredictionControl, PredictionMethod, SiblingTarget

from ..accelerators import Accelerator, get_accelerator
from ..cellrun import BenchRequest, CellRunResult, choose_backend, execute_cell, new_run_dir
from ..errors import UsageError
from ..manifest import FRAMEWORKS, load_manifest
from ..plan import CellSpec, compile_plan, plan_accelerator
from ..profiles import check_profile
from ..rules import load_rules
from ..writable import make_dir, require_writable
from .targets import PredictSpec, predict_spec

__all__ = ["TF_XLA_CASES_PER_WORKER", "predict_specs", "predicted_plan", "run_predicted_cell"]

TF_XLA_CASES_PER_WORKER = 100


def predicted_plan(
    request: BenchRequest,
    spec: PredictSpec,
    backend_name: str,
    also: tuple[PredictSpec, ...] = (),
) -> tuple[CellSpec, Plan]:
    """The cell and plan of a predicted cell: what runs is the CPU (so the backends pick the
    CPU's container options), what the cell is called and predicts is the target; ``also``:
    the pass's other targets (``Plan.siblings``)."""
    cpu = get_accelerator("cpu")
    virtual = Accelerator(
        id=spec.cell_accelerator, flavor="cpu", device_match="", generic="cpu", detect="always"
    )
    cell = CellSpec(request.framework, virtual, request.profile, backend_name)
    # torch_xla cases run on XLA's CPU client; the CPU twin in the same worker is the control.
    options = replace(
        request.options,
        differential=spec.control is PredictionControl.CPU_TWIN,
        prediction=replace(
            spec.settings(), siblings=tuple(SiblingTarget(s.target, s.platform) for s in also)
        ),
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
    spec, *also = predict_specs(request.framework, request.accelerator, request.profile)
    check_profile(request.profile, request.framework, "cpu")
    backend = choose_backend(
        request.backend, request.profile, console, request.python, request.build
    )
    cell, plan = predicted_plan(request, spec, backend.name, tuple(also))
    run_dir = request.run_dir or new_run_dir()
    cell_dir = run_dir / cell.dir_name
    siblings = [(p, run_dir / _dir_name(p)) for p in plan.siblings()]
    fix = "pass --run-dir with a directory you can write"
    for folder in (cell_dir, *(d for _, d in siblings)):
        if folder.exists():
            raise UsageError(f"{folder} exists already; pass another --run-dir")
        require_writable(folder, fix)
    prepared = backend.prepare(request.framework, spec.env_flavor, request.profile)
    plan = plan.in_environment(prepared.cell_environment)
    siblings = [(p.in_environment(prepared.cell_environment), d) for p, d in siblings]
    for folder in (cell_dir, *(d for _, d in siblings)):
        make_dir(folder, fix)
    console.print(
        f"[bold]predicting[/] {request.framework} on "
        f"{', '.join(f'{s.target} ({s.platform})' for s in (spec, *also))} by {spec.method} on "
        "this machine's CPU: a predicted pass means the call "
        + (
            "runs on XLA's CPU client with no aten:: fallback"
            if spec.method is PredictionMethod.XLA_CPU and request.framework == "torch"
            else "lowers or compiles with no host work"
        )
        + ", never that it passes its check on the device"
    )
    return execute_cell(
        cell.cell_id, backend, prepared, plan, cell_dir, False, console, siblings=siblings
    )


def _dir_name(plan: Plan) -> str:
    """A cell's folder: ``<framework>-<accelerator>-<profile>`` of its id (CellSpec's)."""
    return plan.cell.replace("/", "-")


def predict_specs(framework: str, targets: str, profile: str) -> list[PredictSpec]:
    """The prediction of each comma-separated target, or one sentence why there is none;
    more than one target is a JAX pass (one control, every platform lowered in one worker)."""
    names = [t.strip() for t in targets.split(",") if t.strip()]
    specs = [predict_spec(framework, name, profile) for name in names]
    if not specs:
        raise UsageError("--accelerator names no target; give one, or several for JAX")
    if len(specs) > 1 and framework != "jax":
        raise UsageError(
            f"only JAX predicts several targets in one pass (its lowering needs no other "
            f"environment); predict {framework} for one target at a time"
        )
    if len({s.target for s in specs}) != len(specs):
        raise UsageError(f"--accelerator {targets} names a target twice; name each once")
    return specs
