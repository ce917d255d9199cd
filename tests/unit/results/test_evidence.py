"""A record's fallback evidence through the results layer: read and marked when within its
bounds, the line refused when a host-work item breaks them, and the bench summary's list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from portbench.commands.bench import marked_passes
from portbench.plan import plan_from_case_files
from portbench.results import read_results
from portbench.results.safeio import dumps_strict

from .records import case_record

CASES = """
from portbench_runner.api import case

@case("a")
@case("b")
@case("c")
def run(ctx):
    ctx.measure(len, "x")
"""

EIG = {
    "probe": "jax-lowering",
    "platform": "cuda",
    "seen": True,
    "fallback": True,
    "host_work": [{"kind": "hybrid_kernel", "what": "cuhybrid_eig_real"}],
    "host_work_dropped": 0,
}


def _results(tmp_path: Path, *records: dict[str, Any]) -> Path:
    path = tmp_path / "results.jsonl"
    path.write_text("".join(dumps_strict(r) + "\n" for r in records))
    return path


def test_marked_passes_are_read_and_listed(tmp_path: Path) -> None:
    plan = plan_from_case_files(tmp_path / "src", {"demo": CASES})
    unseen = {**EIG, "seen": False, "fallback": None, "host_work": []}
    path = _results(
        tmp_path,
        case_record(plan, "a", evidence=EIG),
        case_record(plan, "b", evidence=unseen),
        case_record(plan, "c"),
    )
    read = read_results(path)
    assert read.skipped == 0
    assert [r.fallback_marked for r in read.records] == [True, False, False]
    assert marked_passes(path) == ["demo.demo::a"]


def test_evidence_past_its_bounds_is_refused(tmp_path: Path) -> None:
    plan = plan_from_case_files(tmp_path / "src", {"demo": CASES})
    huge = {**EIG, "host_work": [{"kind": "hybrid_kernel", "what": "x" * 5000}]}
    read = read_results(_results(tmp_path, case_record(plan, "a", evidence=huge)))
    assert len(read.records) == 0 and read.skipped == 1
