"""Plan loading, as the runner sees it: one sentence naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from portbench_runner.contract import Plan, PlanInvalid, load_plan


def _plan() -> dict[str, object]:
    return {
        "schema": 1,
        "cell": "jax/cpu/current",
        "framework": "jax",
        "profile": "current",
        "backend": "venv",
        "accelerator": {"id": "cpu", "flavor": "cpu"},
        "manifest_root": "/m",
        "functions": [
            {
                "function": "f",
                "case_file": "c.py",
                "cases": [{"id": "f::a", "name": "a", "seed": 1}],
            }
        ],
        "rules": [],
        "timeouts": {},
        "max_restarts": 3,
        "rerun_prefix": "portbench bench",
    }


def test_plan_problems_are_one_sentence_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text("{not json")
    with pytest.raises(PlanInvalid, match=r"plan.json: the plan does not read \(not JSON"):
        load_plan(str(path))
    path.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(PlanInvalid, match="nested deeper"):
        load_plan(str(path))
    plan = _plan()
    del plan["rules"]
    with pytest.raises(PlanInvalid, match="'rules' is missing"):
        Plan.from_json(plan, "p")
    plan = _plan()
    plan["schema"] = 99
    with pytest.raises(PlanInvalid, match="newer than this portbench"):
        Plan.from_json(plan, "p")
    plan = _plan()
    plan["functions"].append(plan["functions"][0])  # type: ignore[attr-defined]
    with pytest.raises(PlanInvalid, match="appears twice"):
        Plan.from_json(plan, "p")
    path.write_text(json.dumps(_plan()))
    assert load_plan(str(path)).case_ids == ["f::a"]


def test_a_plan_label_is_optional_and_a_string() -> None:
    """Schema 2 keeps working with or without the report's ``label``; a label of another
    type means the plan was not written by portbench."""
    plan = _plan()
    plan["schema"] = 2
    assert Plan.from_json(plan, "p").label is None
    plan["label"] = "after the driver update"
    assert Plan.from_json(plan, "p").label == "after the driver update"
    plan["label"] = 7
    with pytest.raises(PlanInvalid, match="'label' is a int, not a string"):
        Plan.from_json(plan, "p")
