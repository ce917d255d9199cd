"""Interrupted cells resume to exactly one record per case; truncated lines never stop a run."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from conftest import (
    make_plan,
    read_jsonl,
    run_supervisor,
    runner_env,
    supervise_cmd,
    validate,
    wait_for_records,
)

SLOW = """
import time
from portbench_runner.api import case

@case("c1")
@case("c2")
@case("c3")
@case("c4")
@case("c5")
@case("c6")
def slow(ctx):
    out = ctx.measure(time.sleep, 0.3, warm=False)
    ctx.check(out is None, "sleep returns None")
"""


def test_interrupted_run_resumes_to_one_record_per_case(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"slow": SLOW})
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        supervise_cmd(plan, run_dir),
        env=runner_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    wait_for_records(run_dir / "results.jsonl", 2, proc)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 130
    first = read_jsonl(run_dir / "results.jsonl")
    assert 2 <= len(first) < 6
    assert read_jsonl(run_dir / "sessions.jsonl")[0]["status"] == "interrupted"

    resumed = run_supervisor(plan, run_dir)
    assert resumed.returncode == 0, resumed.stderr
    records = read_jsonl(run_dir / "results.jsonl")
    assert sorted(r["case_name"] for r in records) == ["c1", "c2", "c3", "c4", "c5", "c6"]
    sessions = read_jsonl(run_dir / "sessions.jsonl")
    assert [s["status"] for s in sessions] == ["interrupted", "complete"]
    assert sessions[1]["skipped_already_recorded"] == len(first)
    for record in records:
        validate(record, "record")


def test_truncated_last_line_is_reported_and_its_case_runs_again(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"slow": SLOW.replace("0.3", "0.0")})
    run_dir = tmp_path / "run"
    assert run_supervisor(plan, run_dir).returncode == 0
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    # Simulate a writer killed mid-line: the last record is cut in half.
    cut = [*lines[:-1], lines[-1][: len(lines[-1]) // 2]]
    (run_dir / "results.jsonl").write_text("\n".join(cut))
    resumed = run_supervisor(plan, run_dir)
    assert resumed.returncode == 0
    assert "1 line(s) skipped as unreadable" in resumed.stderr
    text = (run_dir / "results.jsonl").read_text().splitlines()
    readable = [json.loads(line) for line in text if line.endswith("}")]
    assert sorted(r["case_name"] for r in readable) == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert read_jsonl(run_dir / "sessions.jsonl")[-1]["truncated_lines"] == 1


def test_second_run_gives_the_same_outcomes(tmp_path: Path) -> None:
    source = """
import random
from portbench_runner.api import case

@case("seeded-a")
@case("seeded-b")
@case("seeded-c")
def seeded(ctx):
    value = ctx.measure(lambda: random.Random(ctx.seed).random())
    ctx.check(value < 0.5, f"{value} is not below 0.5")
"""
    plan = make_plan(tmp_path, {"seeded": source})
    outcomes = []
    for run in ("one", "two"):
        assert run_supervisor(plan, tmp_path / run).returncode == 0
        outcomes.append(
            {r["case"]: r["outcome"] for r in read_jsonl(tmp_path / run / "results.jsonl")}
        )
    assert outcomes[0] == outcomes[1]


def test_records_of_another_cell_are_refused(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"slow": SLOW.replace("0.3", "0.0")})
    run_dir = tmp_path / "run"
    assert run_supervisor(plan, run_dir).returncode == 0
    other = json.loads(plan.read_text())
    other["cell"] = "python/cpu/current"
    plan.write_text(json.dumps(other))
    before = (run_dir / "results.jsonl").read_bytes()
    proc = run_supervisor(plan, run_dir)
    assert proc.returncode != 0
    assert "give this cell its own run directory" in proc.stderr
    assert (run_dir / "results.jsonl").read_bytes() == before


def test_env_json_is_written_once_and_validates(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"slow": SLOW.replace("0.3", "0.0")})
    run_dir = tmp_path / "run"
    assert run_supervisor(plan, run_dir).returncode == 0
    env = json.loads((run_dir / "env.json").read_text())
    validate(env, "env")
    assert env["dispatch_floor"]["null"]["warm"]["median_ms"] >= 0
    before = (run_dir / "env.json").read_bytes()
    assert run_supervisor(plan, run_dir).returncode == 0
    assert (run_dir / "env.json").read_bytes() == before


def _interrupted(tmp_path: Path) -> Path:
    plan = make_plan(tmp_path, {"slow": SLOW})
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        supervise_cmd(plan, run_dir),
        env=runner_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    wait_for_records(run_dir / "results.jsonl", 2, proc)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 130
    return run_dir


def test_a_plan_edited_before_resume_is_refused_and_nothing_recorded_changes(
    tmp_path: Path,
) -> None:
    run_dir = _interrupted(tmp_path)
    cell_plan = run_dir / "plan.json"
    original = cell_plan.read_bytes()
    results, sessions = (
        (run_dir / "results.jsonl").read_bytes(),
        read_jsonl(run_dir / "sessions.jsonl"),
    )
    # Another timing: a valid plan, but not the one the records came from.
    edited = json.loads(original)
    edited["timing"]["warm_budget_s"] = 0.5
    cell_plan.write_text(json.dumps(edited))
    refused = run_supervisor(cell_plan, run_dir)
    assert refused.returncode != 0
    assert "Traceback" not in refused.stderr
    assert "changed since the cell first ran" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    # A case file pointed outside the manifest: the typed reader refuses it before any worker
    # could import it (the planted file would leave a marker).
    marker = tmp_path / "imported"
    (tmp_path / "evil.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    for where in (str(tmp_path / "evil.py"), "../../evil.py"):
        edited = json.loads(original)
        edited["functions"][0]["case_file"] = where
        cell_plan.write_text(json.dumps(edited))
        refused = run_supervisor(cell_plan, run_dir)
        assert refused.returncode != 0, where
        assert "Traceback" not in refused.stderr
        assert "is not a path under the manifest's folder" in refused.stderr
    assert not marker.exists()
    # Nothing recorded was touched, and no session line was added.
    assert (run_dir / "results.jsonl").read_bytes() == results
    assert read_jsonl(run_dir / "sessions.jsonl") == sessions
    # The plan restored, the cell resumes and completes.
    cell_plan.write_bytes(original)
    resumed = run_supervisor(cell_plan, run_dir)
    assert resumed.returncode == 0, resumed.stderr
    assert len(read_jsonl(run_dir / "results.jsonl")) == 6
