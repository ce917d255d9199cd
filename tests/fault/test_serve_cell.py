"""What a node does for one cell, without Ray: run, pack, and resume from records sent along."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import project_with_cases

from portbench.accelerators import get_accelerator
from portbench.cluster.landing import land_cell
from portbench.cluster.serve import CellOrder, NodeIdentity, serve_cell
from portbench.manifest import load_manifest
from portbench.plan import CellSpec, PlanOptions, compile_plan, read_plan
from portbench.results import CaseRecord, read_results, read_sessions
from portbench_runner.contract import JSONObject

FINE = """
from portbench_runner.api import case

@case("a")
@case("b")
@case("c")
def fine(ctx):
    ctx.measure(len, "abc")
"""


def _spec(seed_records: tuple[CaseRecord, ...] = (), label: str | None = None) -> JSONObject:
    """The order a Ray head sends: the plan it compiled (here, from the test's home)."""
    cell = CellSpec("jax", get_accelerator("cpu"), "host", "auto")
    plan = compile_plan(
        cell, load_manifest("jax"), [], PlanOptions(timing={"mode": "adaptive"}, label=label)
    )
    return CellOrder("r1", plan, "auto", seed_records).to_json()


def _land(result: dict[str, Any], run: Path) -> Path:
    run.mkdir()
    node = {"name": "t1", "attempt": result["attempt"], "ray_node_id": None}
    land_cell(run, "jax/cpu/host", result["archive"], node)
    return run / "jax-cpu-host"


def test_a_cell_resumed_on_another_node_runs_only_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PORTBENCH_HOME", str(project_with_cases(tmp_path, "jax", FINE)))
    identity = NodeIdentity("t1", tmp_path / "node", ("host",))
    events: list[dict[str, Any]] = []
    first = serve_cell(_spec(), events.append, identity)
    assert first["status"] == "complete", first["reason"]
    assert events[0]["kind"] == "started" and events[-1]["kind"] == "finished"
    assert list((tmp_path / "node" / "cells").iterdir()) == []  # the node keeps no copy
    whole = _land(first, tmp_path / "run1")
    kept = read_results(whole / "results.jsonl").records[:2]

    second = serve_cell(_spec(seed_records=kept), events.append, identity)
    assert second["status"] == "complete", second["reason"]
    resumed = _land(second, tmp_path / "run2")
    records = read_results(resumed / "results.jsonl").records
    assert [r.case_name for r in records] == ["a", "b", "c"]
    assert records[:2] == kept  # sent along, not run again
    sessions, _ = read_sessions(resumed / "sessions.jsonl")
    assert sessions[-1].records_written == 1


def test_records_of_other_case_files_are_not_resumed_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PORTBENCH_HOME", str(project_with_cases(tmp_path, "jax", FINE)))
    identity = NodeIdentity("t1", tmp_path / "node", ("host",))
    first = serve_cell(_spec(), lambda event: None, identity)
    kept = read_results(_land(first, tmp_path / "run1") / "results.jsonl").records[:1]
    other = replace(kept[0], case_file_sha256="0" * 64)
    second = serve_cell(_spec(seed_records=(other,)), lambda event: None, identity)
    assert second["status"] == "failed"
    assert "another case file" in second["reason"]


def test_the_plan_the_head_compiled_is_the_plan_the_node_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PORTBENCH_HOME", str(project_with_cases(tmp_path, "jax", FINE)))
    identity = NodeIdentity("t1", tmp_path / "node", ("host",))
    result = serve_cell(_spec(label="sent by the head"), lambda event: None, identity)
    assert result["status"] == "complete", result["reason"]
    plan = read_plan(_land(result, tmp_path / "run") / "plan.json")
    # Every option of the head's plan reached the node; the node named its backend.
    assert plan.label == "sent by the head"
    assert plan.timing == {"mode": "adaptive"} and plan.backend == "host"
    assert "--backend host" in plan.rerun_prefix


def test_a_node_whose_case_files_differ_refuses_the_cell_in_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = project_with_cases(tmp_path, "jax", FINE)
    monkeypatch.setenv("PORTBENCH_HOME", str(home))
    order = _spec()
    # The node's checkout is not the head's: its case file says something else.
    (home / "manifests" / "jax" / "cases" / "probe.py").write_text(FINE + "\n# changed\n")
    identity = NodeIdentity("t1", tmp_path / "node", ("host",))
    result = serve_cell(order, lambda event: None, identity)
    assert result["status"] == "failed" and result["archive"] is None
    reason = str(result["reason"])
    assert (
        "cases/probe.py is not the case file the plan of jax/cpu/host was compiled with" in reason
    )
    assert "\n" not in reason
    assert not list((tmp_path / "node" / "cells").iterdir())  # nothing ran, nothing kept
