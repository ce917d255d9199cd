"""A host node's cell whose cases flooded its directory still ships: the records, plan, env
and session lines land; what is past the archive's bounds is left out and listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import project_with_cases

from portbench.accelerators import get_accelerator
from portbench.cluster.archive import LEFT_OUT, MAX_ARCHIVE_BYTES, MAX_MEMBERS
from portbench.cluster.landing import land_cell
from portbench.cluster.serve import CellOrder, NodeIdentity, serve_cell
from portbench.manifest import load_manifest
from portbench.plan import CellSpec, PlanOptions, compile_plan
from portbench.results import read_results, read_sessions
from portbench_runner.contract import JSONObject
from portbench_runner.contract.bounds import CASE_FILE_BYTES

# A case on the host backend runs as the node's user: it can write into the cell's folder
# (found from its worker's --plan argument) as much as it likes.
FLOOD = """
import os, sys
from pathlib import Path
from portbench_runner.api import case

def _cell():
    return Path(sys.argv[sys.argv.index("--plan") + 1]).parent

@case("files")
def files(ctx):
    flood = _cell() / "logs" / "flood"
    flood.mkdir(parents=True, exist_ok=True)
    for i in range(100_000):
        os.close(os.open(flood / f"f{i:06d}", os.O_CREAT | os.O_WRONLY, 0o644))
    ctx.measure(len, "x", warm=False)

@case("sparse")
def sparse(ctx):
    # As large as a worker may write (its RLIMIT_FSIZE): sparse, far past a log's bound.
    with open(_cell() / "logs" / "huge.bin", "wb") as handle:
        handle.truncate(LIMIT)
    deep = _cell() / "logs" / "a" / "b" / "c" / "d"
    deep.mkdir(parents=True, exist_ok=True)
    (deep / "too-deep.txt").write_text("x")
    ctx.measure(len, "x", warm=False)

@case("after")
def after(ctx):
    ctx.measure(len, "x", warm=False)
""".replace("LIMIT", str(CASE_FILE_BYTES))


def _order() -> JSONObject:
    """The order a Ray head sends: the plan it compiled (here, from the test's home)."""
    cell = CellSpec("jax", get_accelerator("cpu"), "host", "auto")
    plan = compile_plan(cell, load_manifest("jax"), [], PlanOptions(timing={"mode": "adaptive"}))
    return CellOrder("r1", plan, "auto").to_json()


def test_a_flooded_cell_lands_its_records_and_lists_what_was_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PORTBENCH_HOME", str(project_with_cases(tmp_path, "jax", FLOOD)))
    identity = NodeIdentity("t1", tmp_path / "node", ("host",))
    result = serve_cell(_order(), lambda event: None, identity)
    assert result["status"] == "complete", result["reason"]
    archive = result["archive"]
    assert isinstance(archive, bytes) and len(archive) <= MAX_ARCHIVE_BYTES
    run = tmp_path / "run"
    run.mkdir()
    landed = land_cell(run, "jax/cpu/host", archive, {"name": "t1", "attempt": "ab"})
    assert landed.complete and landed.recorded == landed.planned == 3
    cell = run / "jax-cpu-host"
    records = read_results(cell / "results.jsonl")
    assert sorted(r.case_name for r in records.records) == ["after", "files", "sparse"]
    assert {r.outcome.value for r in records.records} == {"pass"}
    sessions, bad = read_sessions(cell / "sessions.jsonl")
    assert not bad and sessions[-1].status == "complete"
    assert json.loads((cell / "env.json").read_text())["node"]["name"] == "t1"
    assert json.loads((cell / "plan.json").read_text())["cell"] == "jax/cpu/host"
    logs = cell / "logs" / "node-t1-ab"
    assert (logs / "supervisor.log").exists()
    shipped = list((logs / "flood").iterdir())
    assert 0 < len(shipped) < MAX_MEMBERS
    account = json.loads((cell / "logs" / "node-t1-ab" / Path(LEFT_OUT).name).read_text())
    assert account["written_by"] == "head"
    listed = {e["path"]: e for e in account["files"]}
    huge = listed["logs/huge.bin"]
    assert huge["size"] == CASE_FILE_BYTES and "MiB" in huge["why"]
    assert "logs/a/b/c/d/too-deep.txt" in listed
    flood_left = sum(1 for p in listed if p.startswith("logs/flood/")) + account["more"]
    assert len(shipped) + flood_left == 100_000
    assert not (cell / "logs" / "huge.bin").exists()
    assert list((run / ".incoming").iterdir()) == []
