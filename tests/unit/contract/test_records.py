"""Case records: every earlier schema reads, what the published schema refuses is refused,
and every record the one factory makes reads back as itself."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from portbench_runner.contract import (
    CaseRecord,
    CaseResult,
    Category,
    EvidenceKind,
    ExitInfo,
    MutantInfo,
    MutationSettings,
    Outcome,
    OutputInfo,
    Prediction,
    PredictionMethod,
    PredictionSettings,
    PredictionVerdict,
    RecordedBy,
    RecordFactory,
    RecordInvalid,
    RecordKind,
    Stage,
    Timing,
    WarmTiming,
    WorkerInfo,
    crash_result,
    dead_supervisor_result,
    malformed_result,
    result_from_worker,
    timeout_result,
    untested_result,
    violation_result,
)

from .plans import small_plan

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = ROOT / "results" / "reference" / "20261122-cpu-host" / "jax-cpu-host" / "results.jsonl"
WORKER = WorkerInfo(1234, 0)


def _record(result: CaseResult, **kwargs: object) -> CaseRecord:
    return RecordFactory(small_plan()).record("demo.add::float32", result, WORKER, **kwargs)  # type: ignore[arg-type]


def test_schema_1_records_read_and_write_back_unchanged() -> None:
    lines = REFERENCE.read_text().splitlines()[:50]
    for line in lines:
        obj = json.loads(line)
        record = CaseRecord.from_json(obj)
        assert record.schema == 1 and record.evidence_kind is EvidenceKind.OBSERVED
        assert record.to_json() == obj


RESULTS = {
    "pass": CaseResult(
        Outcome.PASS,
        timing=Timing(
            1.5,
            WarmTiming(
                1,
                0.9,
                1.1,
                0.2,
                0.8,
                1.0,
                3,
                10,
                False,
                0.01,
                "converged",
                (1.0, 0.9, float("inf")),
            ),
        ),
    ),
    "crash": crash_result(Stage.CALL, ExitInfo(None, "SIGSEGV", False), "tail", oom=False),
    "memory": crash_result(Stage.SETUP, ExitInfo(None, "SIGKILL", True), "", oom=True),
    "timeout": timeout_result(Stage.CHECK, 2.0, "x" * 20000),
    "violation": violation_result("garbage: nested deeper than 32 levels"),
    "malformed": malformed_result("unknown outcome 'maybe'"),
    "untested": untested_result("no such kernel in this profile"),
    "dead": dead_supervisor_result(-9),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_every_factory_record_reads_back_as_itself(name: str) -> None:
    recorded_by = RecordedBy.HOST if name == "dead" else RecordedBy.SUPERVISOR
    record = _record(RESULTS[name], output=OutputInfo(10, 0), recorded_by=recorded_by)
    line = json.loads(json.dumps(record.to_json(), allow_nan=False))
    assert CaseRecord.from_json(line) == record
    assert record.for_dead_supervisor is (name == "dead")
    if record.outcome is Outcome.FAIL:
        assert record.stage is not None and record.category is not None


def test_the_factory_takes_identity_from_the_plan() -> None:
    record = _record(RESULTS["crash"])
    assert (record.cell, record.function, record.case_name, record.seed) == (
        "python/cpu/host",
        "demo.add",
        "float32",
        11,
    )
    assert record.case_file_sha256 == "b" * 64
    assert record.rerun.endswith("--case demo.add::float32")
    assert record.category is Category.CRASH and record.exit == ExitInfo(None, "SIGSEGV", False)


def _valid() -> dict[str, object]:
    return _record(RESULTS["crash"], output=OutputInfo(0, 0)).to_json()


BAD = {
    "missing exit": lambda r: r.pop("exit"),
    "unknown key": lambda r: r.update(colour="blue"),
    "failure without stage": lambda r: r.update(stage=None),
    "pass with a category": lambda r: r.update(outcome="pass"),
    "skip without reason": lambda r: r.update(
        outcome="skip", stage=None, category=None, reason=None
    ),
    "harness outside the study": lambda r: r.update(category="harness"),
    "case id": lambda r: r.update(case="no-separator"),
    "cell id": lambda r: r.update(cell="Python/CPU"),
    "sha": lambda r: r.update(case_file_sha256="abc"),
    "negative duration": lambda r: r.update(duration_s=-1),
    "seed a string": lambda r: r.update(seed="7"),
    "seed a bool": lambda r: r.update(seed=True),
    "newer schema": lambda r: r.update(schema=5),
    "predicted without how": lambda r: r.update(evidence_kind="predicted"),
    "mutant in a case record": lambda r: r.update(mutant={"kind": "nan", "id": "m1"}),
    "unknown category": lambda r: r.update(category="cosmic-ray"),
    "reason too long": lambda r: r.update(reason="x" * 5000),
    "samples over the bound": lambda r: r.update(
        outcome="pass",
        stage=None,
        category=None,
        timing={"cold_ms": 1, "warm": {**_warm(), "samples_ms": [1.0] * 1001}},
    ),
}


def _warm() -> dict[str, object]:
    return RESULTS["pass"].timing.warm.to_json()  # type: ignore[union-attr]


@pytest.mark.parametrize("name", sorted(BAD))
def test_what_the_schema_refuses_the_reader_refuses(name: str) -> None:
    record = _valid()
    BAD[name](record)
    with pytest.raises(RecordInvalid):
        CaseRecord.from_json(record)


def test_forward_hooks_read_and_write() -> None:
    prediction = Prediction(
        PredictionMethod.LOWERED,
        "tpu",
        Outcome.PASS,
        "lowered for tpu",
        "tpu",
        PredictionVerdict.FAIL,
    )
    plan = small_plan(prediction=PredictionSettings(PredictionMethod.LOWERED, "tpu", "tpu"))
    record = RecordFactory(plan).record(
        "demo.add::int32",
        CaseResult(Outcome.FAIL, Stage.CALL, Category.NOT_IMPLEMENTED, prediction=prediction),
        WORKER,
    )
    assert record.evidence_kind is EvidenceKind.PREDICTED and record.prediction == prediction
    assert CaseRecord.from_json(record.to_json()) == record
    declared = replace(
        record,
        prediction=replace(prediction, method=PredictionMethod.DISPATCHER),
        evidence_kind=EvidenceKind.DECLARED,
    )
    assert CaseRecord.from_json(declared.to_json()).evidence_kind is EvidenceKind.DECLARED

    mutation = small_plan(mutation=MutationSettings(("nan", "off_by_one"), "python/cpu/host"))
    mutant = RecordFactory(mutation).record(
        "demo.add::int32", CaseResult(Outcome.PASS, mutant=MutantInfo("nan", "m1")), WORKER
    )
    assert mutant.kind is RecordKind.MUTANT and mutant.is_mutation
    with pytest.raises(RecordInvalid, match="not a case record"):
        CaseRecord.from_json(mutant.to_json())
    assert CaseRecord.from_json(mutant.to_json(), RecordKind.MUTANT) == mutant
    assert CaseRecord.from_json(mutant.to_json(), kind=None) == mutant


def test_a_worker_result_is_read_without_trusting_it() -> None:
    good = CaseResult(Outcome.FAIL, Stage.CALL, Category.TYPE, rule="r1", reason="r")
    assert result_from_worker(good.to_json()) == good
    for raw, why in (
        (["not", "an", "object"], "not an object"),
        ({"outcome": "maybe"}, "not one of"),
        ({"outcome": "fail", "stage": "call", "category": "harness"}, "stage and category"),
        ({"outcome": "pass", "timing": {"cold_ms": "slow", "warm": None}}, "timing is not valid"),
    ):
        result = result_from_worker(raw)
        assert result.outcome is Outcome.ERROR and result.error is not None
        assert result.error.type == "MalformedResult"
        assert why in result.error.message, result.error.message
    long = result_from_worker({"outcome": "skip", "reason": "r" * 50000, "rule": "x" * 500})
    assert len(long.reason or "") <= 1000 and len(long.rule or "") <= 200
    assert result_from_worker({"outcome": "skip"}).reason == "skipped"
    planted = result_from_worker({"outcome": "pass", "evidence": ["garbage"]})
    assert planted.outcome is Outcome.PASS and planted.evidence is None


def test_legacy_host_records_of_a_dead_supervisor_are_recognised() -> None:
    record = replace(
        _record(dead_supervisor_result(-9)),
        schema=2,
        recorded_by=RecordedBy.SUPERVISOR,
        worker=WorkerInfo(None, 0),
        reason="the cell's supervisor died (exit -9) while this case ran",
    )
    assert record.for_dead_supervisor
    assert not replace(record, worker=WorkerInfo(5, 0)).for_dead_supervisor
