"""One census case in the worker: an entry of the database x one dtype, on the cell's device.

The case passes when every sample ran and every checked sample agreed; it fails (at the
stage and with the category of its first failing sample) when any sample did not, and the
record says how many ran and agreed, so the report can tell "partly" from "not at all".
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Iterable

from ..contract import (
    CaseResult,
    Category,
    CensusResult,
    ContractError,
    ErrorInfo,
    Outcome,
    Plan,
    PlanCase,
    PlanFunction,
    Stage,
    strict,
)
from . import database_module

__all__ = ["run_census_case"]


def run_census_case(
    adapter: Any,
    ctx: Any,
    function: PlanFunction,
    case: PlanCase,
    plan: Plan,
    error: Callable[[BaseException], ErrorInfo],
) -> CaseResult:
    """The result of one planned census case (timing and evidence are the worker's to add)."""
    from ..classify import classify
    from ..signals import SkipCase

    census = function.census
    assert census is not None
    dtype = case.dtype or case.name
    # torch.device has a type ('cpu', 'cuda'); the python adapter's device is a string.
    device_type = getattr(adapter.device, "type", adapter.flavor)
    declared = dtype in census.declared.get(device_type, ())
    _add_site(plan.census.site if plan.census is not None else ())
    try:
        module = database_module(plan.framework)
        # The database is imported outside the case's device scope (JAX's test utilities
        # read the default device at import), and a database that does not import is our
        # environment's fault, never the framework's: an error, not a failure.
        if hasattr(module, "load"):
            module.load()
    except Exception as exc:
        return CaseResult(Outcome.ERROR, error=error(exc))
    try:
        with adapter.case_scope():
            run, expectations = module.run_entry(ctx, adapter, census, dtype, plan.census)
    except SkipCase as exc:
        return CaseResult(Outcome.SKIP, reason=str(exc), census=CensusResult(dtype, declared))
    observed = {"dtype": dtype, "declared": declared, **run.fields()}
    if expectations:
        observed["database_expects"] = expectations
    try:
        seen = CensusResult.from_json(strict(observed), "census")
    except ContractError as exc:
        return CaseResult(Outcome.ERROR, error=ErrorInfo("CaseBug", str(exc)))
    if run.first_failure is None:
        return CaseResult(Outcome.PASS, census=seen)
    stage, failure, index = run.first_failure
    if stage == "check":
        category, rule = "precision", None
    elif type(failure).__name__ == "FallbackDetected":
        category, rule = "fallback", None
    else:
        category, rule = classify(failure, stage, plan.rules)
    return CaseResult(
        Outcome.FAIL,
        Stage(stage),
        category=Category(category),
        rule=rule,
        reason=f"sample {index} of {run.samples} failed first; {run.ran} ran, {run.agreed} agreed",
        error=error(failure),
        census=seen,
    )


def _add_site(folders: Iterable[str]) -> None:
    # The census lock's packages (expecttest, absl; a census image's own folder): appended, so
    # the cell's own pinned packages always win over them.
    for folder in folders:
        if isinstance(folder, str) and folder not in sys.path:
            sys.path.append(folder)
