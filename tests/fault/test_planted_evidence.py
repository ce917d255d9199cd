"""A case that plants its own evidence cannot lose its record: the supervisor cuts the
evidence back to the schema's shape and the host stores the case."""

from __future__ import annotations

from pathlib import Path

from conftest import make_plan, read_jsonl, run_supervisor

PLANTED = """
from portbench_runner.api import case

@case("planted")
def planted(ctx):
    ctx.measure(abs, -1)
    ctx.evidence = {"probe": "mine", "seen": True, "fallback": True,
                    "host_work": [{"kind": "k" * 500, "what": "w" * 50000}] * 40,
                    "deep": {"x": list(range(10000))}}

@case("garbage")
def garbage(ctx):
    ctx.measure(abs, -1)
    ctx.evidence = ["not", "an", "object"]
"""


def test_planted_evidence_is_bounded_and_the_case_kept(tmp_path: Path) -> None:
    plan = make_plan(tmp_path / "src", {"planted": PLANTED})
    proc = run_supervisor(plan, tmp_path / "cell")
    assert proc.returncode == 0, proc.stderr
    records = {r["case_name"]: r for r in read_jsonl(tmp_path / "cell" / "results.jsonl")}
    assert records["planted"]["outcome"] == "pass"
    evidence = records["planted"]["evidence"]
    assert evidence["fallback"] is True and "deep" not in evidence
    assert len(evidence["host_work"]) == 1  # forty copies of one item, deduplicated
    assert records["garbage"]["outcome"] == "pass" and records["garbage"]["evidence"] is None
