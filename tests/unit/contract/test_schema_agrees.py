"""Records are validated one way (``CaseRecord.from_json``); the JSON schema in
src/portbench/schemas stays as published documentation. This proves the two agree: on a corpus
of good lines (every record of the reference runs and the fixture cells, and records of each
kind the one factory makes) and of bad ones (each a good line broken in one way), the schema
and the reader accept and refuse the same lines."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from conftest import ROOT, load_schema

from portbench_runner.contract import (
    CaseRecord,
    CaseResult,
    Category,
    ContractError,
    Evidence,
    ExitInfo,
    MutantInfo,
    MutationSettings,
    Outcome,
    OutputInfo,
    Prediction,
    PredictionMethod,
    PredictionSettings,
    PredictionVerdict,
    Provenance,
    RecordedBy,
    RecordFactory,
    SessionLine,
    Stage,
    WorkerInfo,
    crash_result,
    dead_supervisor_result,
    timeout_result,
)

from .plans import small_plan

VALIDATOR = jsonschema.Draft202012Validator(load_schema("record"))
SESSIONS = jsonschema.Draft202012Validator(load_schema("session"))


def _file_lines() -> list[dict[str, Any]]:
    lines = []
    for path in sorted((ROOT / "tests" / "data" / "cells").glob("*/*/results.jsonl")):
        if "study" in path.parent.name:
            continue
        lines += [json.loads(line) for line in path.read_text().splitlines()]
    reference = sorted((ROOT / "results" / "reference").glob("*/*/results.jsonl"))
    for path in reference[:3]:
        lines += [json.loads(line) for line in path.read_text().splitlines()[:40]]
    return lines


def _made_lines() -> list[dict[str, Any]]:
    worker = WorkerInfo(5, 0)
    plan = small_plan()
    make = RecordFactory(plan).record
    evidence = Evidence(
        "jax-lowering", "cuda", True, True, host_work_dropped=0, extra={"ops_seen": 3}
    )
    results = [
        CaseResult(Outcome.PASS, evidence=evidence),
        crash_result(Stage.CALL, ExitInfo(None, "SIGSEGV", False), "tail", False),
        timeout_result(Stage.SETUP, 2.0, ""),
        CaseResult(Outcome.SKIP, reason="no"),
    ]
    lines = [make("demo.add::int32", r, worker, output=OutputInfo(1, 0)).to_json() for r in results]
    dead = make("demo.add::int32", dead_supervisor_result(-9), WorkerInfo(None, 0))
    lines.append({**dead.to_json(), "recorded_by": RecordedBy.HOST.value})
    predicted = small_plan(prediction=PredictionSettings(PredictionMethod.LOWERED, "tpu", "tpu"))
    with_provenance = RecordFactory(predicted, Provenance("jax==0.6.2", "3.11.7", "2.0.0"))
    lines.append(
        with_provenance.record("demo.add::int32", CaseResult(Outcome.PASS), worker).to_json()
    )
    said = Prediction(
        PredictionMethod.LOWERED,
        "tpu",
        Outcome.PASS,
        "MLIR translation rule for primitive 'eig' not found for platform tpu",
        verdict=PredictionVerdict.FAIL,
    )
    refused = CaseResult(Outcome.FAIL, Stage.CALL, Category.NOT_IMPLEMENTED, prediction=said)
    lines.append(with_provenance.record("demo.add::int32", refused, worker).to_json())
    mutation = small_plan(mutation=MutationSettings(("nan",)))
    mutant = CaseResult(
        Outcome.FAIL, Stage.CHECK, Category.PRECISION, mutant=MutantInfo("nan", "m1")
    )
    lines.append(RecordFactory(mutation).record("demo.add::int32", mutant, worker).to_json())
    return lines


GOOD = _file_lines() + _made_lines()

BREAKS: dict[str, Callable[[dict[str, Any]], object]] = {
    "kind": lambda r: r.update(kind="study"),
    "schema 5": lambda r: r.update(schema=5),
    "schema a string": lambda r: r.update(schema="2"),
    "no cell": lambda r: r.pop("cell"),
    "cell id": lambda r: r.update(cell="Torch/CPU/Paper"),
    "no exit": lambda r: r.pop("exit"),
    "an unknown key": lambda r: r.update(colour="blue"),
    "case id": lambda r: r.update(case="no separator"),
    "seed a float": lambda r: r.update(seed=1.5),
    "outcome": lambda r: r.update(outcome="maybe"),
    "stage": lambda r: r.update(stage="teardown"),
    "a failure without a stage": lambda r: r.update(outcome="fail", stage=None, category="crash"),
    "a pass with a category": lambda r: r.update(outcome="pass", stage=None, category="crash"),
    "a skip without a reason": lambda r: r.update(
        outcome="skip", stage=None, category=None, reason=None
    ),
    "harness outside the study": lambda r: r.update(
        outcome="fail", stage="call", category="harness", reason="x"
    ),
    "sha256": lambda r: r.update(case_file_sha256="xyz"),
    "negative duration": lambda r: r.update(duration_s=-0.5),
    "worker without a pid": lambda r: r.update(worker={"index": 0}),
    "error without a traceback": lambda r: r.update(error={"type": "E", "message": "m"}),
    "exit with a code string": lambda r: r.update(exit={"code": "9", "signal": None}),
    "timing without warm": lambda r: r.update(timing={"cold_ms": 1.0}),
    "timing negative": lambda r: r.update(timing={"cold_ms": -1.0, "warm": None}),
    "evidence a list": lambda r: r.update(evidence=["x"]),
    "output negative": lambda r: r.update(output={"bytes": -1, "dropped_bytes": 0}),
    "evidence kind": lambda r: r.update(evidence_kind="guessed"),
    "predicted without how": lambda r: r.update(evidence_kind="predicted", prediction=None),
    "prediction verdict": lambda r: r.update(
        evidence_kind="predicted",
        prediction={"method": "lowered", "target": "tpu", "verdict": "maybe"},
    ),
    "prediction platform": lambda r: r.update(
        evidence_kind="predicted",
        prediction={"method": "lowered", "target": "tpu", "platform": "p" * 81},
    ),
    "prediction key": lambda r: r.update(
        evidence_kind="predicted",
        prediction={"method": "lowered", "target": "tpu", "why": "old"},
    ),
    "recorded by": lambda r: r.update(recorded_by="node"),
    "mutant in a case record": lambda r: r.update(kind="case", mutant={"kind": "nan", "id": "m"}),
    "provenance key": lambda r: r.update(provenance={"colour": "blue"}),
    "reason too long": lambda r: r.update(reason="r" * 5000),
}


def _agree(line: dict[str, Any]) -> tuple[bool, bool]:
    schema_ok = VALIDATOR.is_valid(line)
    try:
        CaseRecord.from_json(line, kind=None)
        reader_ok = True
    except ContractError:
        reader_ok = False
    return schema_ok, reader_ok


def test_the_corpus_is_not_empty_and_spans_every_schema() -> None:
    assert {line["schema"] for line in GOOD} == {1, 2, 3, 4}
    assert {line["kind"] for line in GOOD} == {"case", "mutant"}


@pytest.mark.parametrize("index", range(len(GOOD)))
def test_schema_and_reader_accept_the_same_good_lines(index: int) -> None:
    assert _agree(GOOD[index]) == (True, True)


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_schema_and_reader_refuse_the_same_bad_lines(name: str) -> None:
    tried = 0
    for line in GOOD:
        bad = copy.deepcopy(line)
        BREAKS[name](bad)
        if bad == line:
            continue
        tried += 1
        assert _agree(bad) == (False, False), (name, line["case"], line["schema"])
    assert tried


def test_session_lines_of_every_schema_agree_with_their_schema() -> None:
    paths = sorted((ROOT / "tests" / "data" / "cells").glob("*/*/sessions.jsonl"))
    lines = [json.loads(line) for path in paths for line in path.read_text().splitlines()]
    assert {line.get("schema") for line in lines} >= {1, 2, 3}
    for line in lines:
        SessionLine.from_json(line)
        assert SESSIONS.is_valid(line), line
    written = SessionLine("python/cpu/host", SessionLine.from_json(lines[0]).status, None, index=0)
    assert SESSIONS.is_valid(written.to_json())
