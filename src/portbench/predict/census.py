"""A predicted census cell: every entry of a framework's operator database, looked at for a
target on this machine's CPU (JAX's primitive harnesses lowered for tpu, cuda or rocm;
PyTorch's OpInfo entries against a CUDA build's dispatcher)."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from rich.console import Console

from portbench_runner.contract import PredictionControl

from ..accelerators import Accelerator
from ..cellrun import CellRunResult, execute_cell, new_run_dir, open_cell
from ..census.environment import census_environment
from ..census.plan import compile_census_plan
from ..census.run import LISTING_FILE, CensusRequest, census_dir_name, list_database
from ..errors import UsageError
from ..plan import CellSpec, plan_accelerator
from ..results.safeio import loads_strict, write_new
from ..rules import load_rules
from ..writable import make_dir, require_writable
from .targets import predict_spec

__all__ = ["run_predicted_census"]


def run_predicted_census(request: CensusRequest, console: Console) -> CellRunResult:
    """List the database in the prediction's environment and run every entry with the look."""
    if request.resume is not None:
        raise UsageError("--predict cannot go with --resume; run the predicted census anew")
    spec = predict_spec(request.framework, request.accelerator, request.profile)
    if spec.control is PredictionControl.CPU_TWIN:
        raise UsageError(
            f"a {request.framework} census cannot be predicted for {spec.target} yet (its "
            "entries would run on torch_xla's CPU client); predict the bench cases instead"
        )
    backend, cpu_cell = open_cell(
        request.framework,
        "cpu",
        request.profile,
        request.backend,
        request.python,
        request.build,
        console,
    )
    virtual = Accelerator(
        id=spec.cell_accelerator, flavor="cpu", device_match="", generic="cpu", detect="always"
    )
    cell = CellSpec(request.framework, virtual, request.profile, backend.name)
    cell_dir = (request.run_dir or new_run_dir()) / census_dir_name(cell)
    if cell_dir.exists():
        raise UsageError(f"{cell_dir} exists already; pass another --run-dir")
    require_writable(cell_dir, "pass --run-dir with a directory you can write")
    prepared = backend.prepare(request.framework, spec.env_flavor, request.profile)
    prepared, site = census_environment(prepared, request.framework, request.profile, console)
    listing, data = list_database(backend, prepared, request.framework, site)
    plan = compile_census_plan(
        cell,
        listing,
        load_rules(request.framework),
        replace(
            request.options,
            site=site,
            plan=replace(request.options.plan, prediction=spec.settings()),
        ),
        hashlib.sha256(data).hexdigest(),
    )
    plan = replace(
        plan,
        accelerator=plan_accelerator(cpu_cell.accelerator),
        rerun_prefix=plan.rerun_prefix.replace(
            f"--accelerator {spec.cell_accelerator}",
            f"--accelerator {spec.target} --predict",
        ),
    ).in_environment(replace(prepared.cell_environment, manifest_root=None))
    make_dir(cell_dir, "pass --run-dir with a directory you can write")
    write_new(cell_dir / LISTING_FILE, loads_strict(data))
    console.print(
        f"[bold]predicting[/] the {request.framework} census on {spec.target} ({spec.method}, "
        f"platform {spec.platform}) on this machine's CPU"
    )
    return execute_cell(cell.cell_id, backend, prepared, plan, cell_dir, False, console)
