"""Plan validation, as the runner sees it."""

from __future__ import annotations

from pathlib import Path

import pytest

from portbench_runner.plan import PlanInvalid, load_plan, validate_plan


def _plan() -> dict:
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
    with pytest.raises(PlanInvalid, match=r"plan.json: the plan is not valid JSON"):
        load_plan(str(path))
    plan = _plan()
    del plan["rules"]
    with pytest.raises(PlanInvalid, match="the plan lacks 'rules'"):
        validate_plan(plan, "p")
    plan = _plan()
    plan["schema"] = 99
    with pytest.raises(PlanInvalid, match="newer than this runner"):
        validate_plan(plan, "p")
    plan = _plan()
    plan["functions"].append(plan["functions"][0])
    with pytest.raises(PlanInvalid, match="appears twice"):
        validate_plan(plan, "p")


def test_a_plan_label_is_optional_and_a_string() -> None:
    """Schema 2 keeps working with or without the report's ``label``; a label of another
    type means the plan was not written by portbench."""
    plan = _plan()
    plan["schema"] = 2
    assert "label" not in validate_plan(plan, "p")
    plan["label"] = "after the driver update"
    assert validate_plan(plan, "p")["label"] == "after the driver update"
    plan["label"] = 7
    with pytest.raises(PlanInvalid, match="'label' must be a str"):
        validate_plan(plan, "p")
