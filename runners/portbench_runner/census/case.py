"""One census case in the worker: an entry of the database x one dtype, on the cell's device.

The case passes when every sample ran and every checked sample agreed; it fails (at the
stage and with the category of its first failing sample) when any sample did not, and the
record says how many ran and agreed, so the report can tell "partly" from "not at all".
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Dict, List

from . import database_module

__all__ = ["run_census_case"]


def run_census_case(
    adapter: Any,
    ctx: Any,
    function: Dict[str, Any],
    case: Dict[str, Any],
    plan: Dict[str, Any],
    error_fields: Callable[[BaseException], Dict[str, str]],
) -> Dict[str, Any]:
    """The outcome fields of one planned census case (as ``Worker.run_case`` returns them)."""
    from ..classify import classify
    from ..signals import SkipCase

    census = function["census"]
    settings = plan.get("census") or {}
    dtype = case["dtype"]
    # torch.device has a type ('cpu', 'cuda'); the python adapter's device is a string.
    device_type = getattr(adapter.device, "type", adapter.flavor)
    declared = dtype in (census.get("declared") or {}).get(device_type, [])
    observed: Dict[str, Any] = {"dtype": dtype, "declared": declared}
    _add_site(settings.get("site"))
    try:
        module = database_module(plan["framework"])
        # The database is imported outside the case's device scope (JAX's test utilities
        # read the default device at import), and a database that does not import is our
        # environment's fault, never the framework's: an error, not a failure.
        if hasattr(module, "load"):
            module.load()
    except Exception as exc:
        return {"outcome": "error", "error": error_fields(exc), "timing": None}
    try:
        with adapter.case_scope():
            run, expectations = module.run_entry(ctx, adapter, census, dtype, settings)
    except SkipCase as exc:
        return {"outcome": "skip", "reason": str(exc), "census": observed, "timing": None}
    observed.update(run.fields())
    if expectations:
        observed["database_expects"] = expectations
    fields: Dict[str, Any] = {"census": observed, "timing": ctx.timing}
    if run.first_failure is None:
        fields["outcome"] = "pass"
        return fields
    stage, failure, index = run.first_failure
    if stage == "check":
        category, rule = "precision", None
    elif type(failure).__name__ == "FallbackDetected":
        category, rule = "fallback", None
    else:
        category, rule = classify(failure, stage, _rules(plan))
    fields.update(
        {
            "outcome": "fail",
            "stage": stage,
            "category": category,
            "rule": rule,
            "reason": f"sample {index} of {run.samples} failed first; "
            f"{run.ran} ran, {run.agreed} agreed",
            "error": error_fields(failure),
        }
    )
    return fields


def _add_site(folders: Any) -> None:
    # The census lock's packages (expecttest, absl; a census image's own folder): appended, so
    # the cell's own pinned packages always win over them.
    for folder in folders if isinstance(folders, list) else []:
        if isinstance(folder, str) and folder not in sys.path:
            sys.path.append(folder)


def _rules(plan: Dict[str, Any]) -> List[Dict[str, Any]]:
    rules = plan.get("rules")
    return rules if isinstance(rules, list) else []
