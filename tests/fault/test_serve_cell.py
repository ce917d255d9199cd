"""What a node does for one cell, without Ray: run, pack, and resume from records sent along."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import project_with_cases

from portbench.cluster.landing import land_cell
from portbench.cluster.serve import NodeIdentity, serve_cell
from portbench.results import read_results, read_sessions

FINE = """
from portbench_runner.api import case

@case("a")
@case("b")
@case("c")
def fine(ctx):
    ctx.measure(len, "abc")
"""


def _spec(**extra: Any) -> dict[str, Any]:
    return {
        "run_id": "r1",
        "cell": "jax/cpu/host",
        "framework": "jax",
        "accelerator": "cpu",
        "profile": "host",
        "backend": "auto",
        "functions": [],
        "cases": [],
        "timing": {"mode": "adaptive"},
        **extra,
    }


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
    kept = read_results(whole / "results.jsonl").dicts()[:2]

    second = serve_cell(_spec(seed_records=kept), events.append, identity)
    assert second["status"] == "complete", second["reason"]
    resumed = _land(second, tmp_path / "run2")
    records = read_results(resumed / "results.jsonl").dicts()
    assert [r["case_name"] for r in records] == ["a", "b", "c"]
    assert records[:2] == kept  # sent along, not run again
    sessions, _ = read_sessions(resumed / "sessions.jsonl")
    assert sessions[-1].records_written == 1


def test_records_of_other_case_files_are_not_resumed_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PORTBENCH_HOME", str(project_with_cases(tmp_path, "jax", FINE)))
    identity = NodeIdentity("t1", tmp_path / "node", ("host",))
    first = serve_cell(_spec(), lambda event: None, identity)
    kept = read_results(_land(first, tmp_path / "run1") / "results.jsonl").dicts()[:1]
    kept[0]["case_file_sha256"] = "0" * 64
    second = serve_cell(_spec(seed_records=kept), lambda event: None, identity)
    assert second["status"] == "failed"
    assert "another case file" in second["reason"]
