"""Reading the plan the host compiled (JSON only: the runner parses nothing else).

Plan schema history:
  1 - first version.
  2 - ``file_cases`` per function, ``cases_per_worker``, ``differential`` and
      ``cell_budget_s`` (all optional); ``label`` (optional, the user's name for the run:
      read by the report only, never by the runner).
  3 - ``census`` (optional): a census cell's settings; its functions carry ``census``
      entries and its cases a ``dtype`` in place of case files.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

try:
    from typing import TypedDict
except ImportError:  # pragma: no cover
    TypedDict = dict  # type: ignore[assignment]

__all__ = ["PLAN_SCHEMA", "CaseEntry", "Plan", "PlanInvalid", "load_plan", "validate_plan"]

PLAN_SCHEMA = 3

Plan = Dict[str, Any]


class CaseEntry(TypedDict):
    function: Dict[str, Any]
    case: Dict[str, Any]


class PlanInvalid(Exception):
    """The plan cannot be run; the message says what is wrong, in one sentence."""


_REQUIRED = {
    "schema": int,
    "cell": str,
    "framework": str,
    "profile": str,
    "backend": str,
    "accelerator": dict,
    "manifest_root": str,
    "functions": list,
    "rules": list,
    "timeouts": dict,
    "max_restarts": int,
    "rerun_prefix": str,
}


def validate_plan(plan: Any, where: str) -> Plan:
    if not isinstance(plan, dict):
        raise PlanInvalid(f"{where}: a plan is a JSON object, not {type(plan).__name__}")
    for key, kind in _REQUIRED.items():
        if key not in plan:
            raise PlanInvalid(f"{where}: the plan lacks '{key}'; recompile it with portbench bench")
        if not isinstance(plan[key], kind):
            raise PlanInvalid(f"{where}: '{key}' must be a {kind.__name__}")
    # The runner ignores the label; a wrong type still means a plan not written by portbench.
    if not isinstance(plan.get("label", ""), str):
        raise PlanInvalid(f"{where}: 'label' must be a str when present")
    if plan["schema"] > PLAN_SCHEMA:
        raise PlanInvalid(
            f"{where}: plan schema {plan['schema']} is newer than this runner's "
            f"{PLAN_SCHEMA}; use the runner of the portbench that wrote it"
        )
    seen: Dict[str, str] = {}
    for function in plan["functions"]:
        for key in ("function", "case_file", "cases"):
            if key not in function:
                raise PlanInvalid(f"{where}: a function entry lacks '{key}'")
        for case in function["cases"]:
            for key in ("id", "name", "seed"):
                if key not in case:
                    raise PlanInvalid(f"{where}: a case of {function['function']} lacks '{key}'")
            if case["id"] in seen:
                raise PlanInvalid(f"{where}: case id {case['id']!r} appears twice")
            seen[case["id"]] = function["function"]
    return plan


def load_plan(path: str) -> Plan:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise PlanInvalid(f"{path}: cannot read the plan ({exc.strerror})") from None
    except ValueError as exc:
        raise PlanInvalid(f"{path}: the plan is not valid JSON ({exc})") from None
    return validate_plan(data, path)


def case_ids(plan: Plan) -> List[str]:
    """Every case id of the plan, in plan order."""
    return [case["id"] for function in plan["functions"] for case in function["cases"]]
