"""Plan validation and the append-only store, as the runner sees them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from portbench_runner.plan import PlanInvalid, load_plan, validate_plan
from portbench_runner.store import CellStore, read_records


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


def test_store_appends_after_a_truncated_line_without_merging(tmp_path: Path) -> None:
    store = CellStore(str(tmp_path))
    store.append_record({"kind": "case", "case": "a"})
    with open(store.results_path, "a") as handle:
        handle.write('{"kind": "case", "ca')
    store.append_record({"kind": "case", "case": "b"})
    records, bad = read_records(store.results_path)
    assert [r["case"] for r in records] == ["a", "b"]
    assert bad == [2]


def test_env_is_written_once(tmp_path: Path) -> None:
    store = CellStore(str(tmp_path))
    assert store.write_env_once({"first": True})
    assert not store.write_env_once({"first": False})
    assert json.loads(Path(store.env_path).read_text()) == {"first": True}
