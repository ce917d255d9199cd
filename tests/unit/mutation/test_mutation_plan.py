"""A mutation run's plan: each case planned unmutated first, then once per mutant kind, the
plan and its records marked as a mutation run's; the usage reader of measured calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from portbench.errors import UsageError
from portbench.mutation.plan import check_kinds, mutation_plan
from portbench.plan import plan_from_case_files
from portbench_runner.contract import (
    CaseRecord,
    CaseResult,
    ExitInfo,
    MutationSettings,
    Outcome,
    Plan,
    RecordFactory,
    RecordKind,
    Stage,
    WorkerInfo,
    crash_result,
)
from portbench_runner.mutation import MUTANT_KINDS, mutant_case_id, split_mutant_id
from portbench_runner.mutation.usage import result_unused

CASES = """
from portbench_runner.api import case

@case("a")
@case("b")
def run(ctx):
    out = ctx.measure(len, "x")
    ctx.check(out == 1, "len")
"""


def _plan(tmp_path: Path, kinds: tuple[str, ...]) -> Plan:
    base = plan_from_case_files(tmp_path, {"demo": CASES})
    return mutation_plan(base, kinds, MutationSettings(kinds, base.cell))


def test_each_case_runs_unmutated_first_then_once_per_kind(tmp_path: Path) -> None:
    plan = _plan(tmp_path, ("float", "raise"))
    assert plan.is_mutation and plan.mutation is not None
    assert plan.case_ids == [
        "demo.demo::a",
        "demo.demo::a.mutant-float",
        "demo.demo::a.mutant-raise",
        "demo.demo::b",
        "demo.demo::b.mutant-float",
        "demo.demo::b.mutant-raise",
    ]
    _, case = plan.entry("demo.demo::a.mutant-raise")
    assert (case.name, case.mutant) == ("a", "raise")
    # The plan reads back as it was written, mutants included.
    assert Plan.from_json(plan.to_json(), "plan") == plan


def test_mutant_ids_split_back_into_case_and_kind() -> None:
    for kind in MUTANT_KINDS:
        assert split_mutant_id(mutant_case_id("f::x.y", kind)) == ("f::x.y", kind)
    assert split_mutant_id("f::x") == ("f::x", "none")
    assert split_mutant_id("f::x.mutant-unknown") == ("f::x.mutant-unknown", "none")


def test_unknown_kinds_are_one_sentence() -> None:
    with pytest.raises(UsageError, match="unknown mutant kind 'flaot'"):
        check_kinds(["flaot"])
    assert check_kinds([]) == MUTANT_KINDS
    assert check_kinds(["raise", "float"]) == ("float", "raise")


def test_records_a_worker_could_not_make_still_name_their_mutant(tmp_path: Path) -> None:
    plan = _plan(tmp_path, ("nan",))
    factory = RecordFactory(plan)
    crash = crash_result(Stage.CALL, ExitInfo(None, 11), "", False)
    record = factory.record("demo.demo::a.mutant-nan", crash, WorkerInfo(1, 0))
    assert record.kind is RecordKind.MUTANT and record.mutant is not None
    assert record.mutant.kind == "nan"
    # A mutant record is never read as a case's result.
    with pytest.raises(Exception, match="not a case record"):
        CaseRecord.from_json(record.to_json())
    ok = factory.record("demo.demo::b", CaseResult(Outcome.PASS), WorkerInfo(1, 0))
    assert ok.mutant is not None and ok.mutant.kind == "none"


def _measure_used(ctx):  # type: ignore[no-untyped-def]
    out = ctx.measure(len, "x")
    return out


def _measure_dropped(ctx):  # type: ignore[no-untyped-def]
    ctx.measure(len, "x")


def _measure_never_read(ctx):  # type: ignore[no-untyped-def]
    out = ctx.measure(len, "x")  # noqa: F841


def test_the_usage_reader_tells_used_results_from_unused_ones() -> None:
    def line(fn: object) -> int:
        code = fn.__code__  # type: ignore[attr-defined]
        return int(code.co_firstlineno) + 1

    assert result_unused(_measure_used.__code__, line(_measure_used)) is None
    assert "not used" in (result_unused(_measure_dropped.__code__, line(_measure_dropped)) or "")
    never = result_unused(_measure_never_read.__code__, line(_measure_never_read)) or ""
    assert "never read" in never
