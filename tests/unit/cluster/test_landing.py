"""Landing a node's cell on the head: read through the typed layer, never a case twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from portbench.cluster.archive import ArchiveRefused, pack_cell
from portbench.cluster.landing import land_cell
from portbench.results import read_results, read_sessions

from .cells import make_plan, node_cell

CELL = "python/cpu/host"
NODE = {"name": "n2", "attempt": "ab12", "ray_node_id": "f" * 56}


def test_a_cell_lands_with_its_node_in_env_json(tmp_path: Path) -> None:
    plan = make_plan(tmp_path)
    archive = pack_cell(node_cell(tmp_path / "node", plan))
    run = tmp_path / "run"
    run.mkdir()
    landed = land_cell(run, CELL, archive, NODE)
    assert landed.complete and landed.recorded == landed.planned == 3 and landed.new_records == 3
    env = json.loads((run / "python-cpu-host" / "env.json").read_text())
    assert env["node"] == NODE and env["host"] == {"hostname": "n1"}
    sessions, bad = read_sessions(run / "python-cpu-host" / "sessions.jsonl")
    assert not bad and sessions[0].node is not None and sessions[0].node.name == "n2"
    assert (run / "python-cpu-host" / "logs" / "node-n2-ab12" / "supervisor.log").exists()
    assert list((run / ".incoming").iterdir()) == []  # staging is cleared


def test_the_same_cell_landing_twice_keeps_one_record_per_case(tmp_path: Path) -> None:
    plan = make_plan(tmp_path)
    archive = pack_cell(node_cell(tmp_path / "node", plan))
    run = tmp_path / "run"
    run.mkdir()
    land_cell(run, CELL, archive, NODE)
    again = land_cell(run, CELL, archive, {**NODE, "attempt": "cd34"})
    assert again.new_records == 0 and again.recorded == 3
    read = read_results(run / "python-cpu-host" / "results.jsonl")
    assert len(read.records) == 3 and read.skipped == 0


def test_a_partial_cell_is_incomplete_and_a_resumed_one_adds_only_the_rest(tmp_path: Path) -> None:
    plan = make_plan(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    first = node_cell(tmp_path / "n1", plan, ("a", "b"), status="interrupted")
    landed = land_cell(run, CELL, pack_cell(first), NODE)
    assert not landed.complete and landed.recorded == 2
    rest = node_cell(tmp_path / "n2", plan, ("a", "b", "c"))
    landed = land_cell(run, CELL, pack_cell(rest), {**NODE, "attempt": "ee"})
    assert landed.complete and landed.new_records == 1 and landed.recorded == 3


def test_an_archive_of_another_cell_or_with_bad_lines_lands_nothing(tmp_path: Path) -> None:
    plan = make_plan(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    with pytest.raises(ArchiveRefused, match="not torch/cpu/host"):
        land_cell(run, "torch/cpu/host", pack_cell(node_cell(tmp_path / "a", plan)), NODE)
    damaged = node_cell(tmp_path / "b", plan)
    with open(damaged / "results.jsonl", "a") as handle:
        handle.write('{"kind": "case", "cut sh\n')
    with pytest.raises(ArchiveRefused, match="do not read"):
        land_cell(run, CELL, pack_cell(damaged), NODE)
    assert not (run / "python-cpu-host").exists()


def test_records_of_another_cell_are_refused(tmp_path: Path) -> None:
    plan = make_plan(tmp_path)
    cell = node_cell(tmp_path / "a", plan)
    lines = (
        (cell / "results.jsonl")
        .read_text()
        .replace('"cell":"python/cpu/host"', '"cell":"jax/cpu/host"')
    )
    (cell / "results.jsonl").write_text(lines)
    with pytest.raises(ArchiveRefused, match="records of 'jax/cpu/host'"):
        land_cell(tmp_path, CELL, pack_cell(cell), NODE)


@pytest.mark.parametrize("name", ["a/b", "a-x/../../../../tmp/pwned", "..", "", None, 7])
def test_a_name_that_is_no_node_name_never_becomes_a_path(tmp_path: Path, name: object) -> None:
    plan = make_plan(tmp_path)
    archive = pack_cell(node_cell(tmp_path / "node", plan))
    run = tmp_path / "run"
    run.mkdir()
    landed = land_cell(run, CELL, archive, {**NODE, "name": name, "attempt": "../x"})
    assert landed.complete and landed.new_records == 3
    assert [p.name for p in (run / "python-cpu-host" / "logs").iterdir()] == ["node-unknown-x"]
    # Landed again (a resume): the first landing's logs are kept beside the second's.
    land_cell(run, CELL, archive, {**NODE, "name": name})
    names = sorted(p.name for p in (run / "python-cpu-host" / "logs").iterdir())
    assert names == ["node-unknown-ab12", "node-unknown-x"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["node", "run", "src"]


def test_the_advertised_name_is_read_only_when_it_is_a_node_name() -> None:
    from portbench.cluster.resources import advertised_name

    assert advertised_name(["CPU", "portbench-node:n1", "portbench:slot"]) == "n1"
    assert advertised_name(["portbench-node:a/../b", "portbench-node:.."]) is None
    assert advertised_name(["portbench-node:a/b", "portbench-node:ok-2"]) == "ok-2"
