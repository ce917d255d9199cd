"""Plans and protocol messages: typed both ways, bounded, refused in one sentence."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from portbench_runner.contract import (
    COMMANDS,
    HOST_MESSAGES,
    PLAN_SCHEMA,
    WORKER_MESSAGES,
    Bye,
    CaseResult,
    CellEnvironment,
    EnvDocument,
    EnvMessage,
    EvidenceKind,
    Fatal,
    Finished,
    Hello,
    ImageRef,
    Integrity,
    IntegrityVerdict,
    LockRef,
    MessageInvalid,
    Outcome,
    Plan,
    PlanCase,
    PlanInvalid,
    PredictionControl,
    PredictionMethod,
    PredictionSettings,
    Provenance,
    RecordFactory,
    RecordMessage,
    Result,
    Run,
    SessionLine,
    SessionMessage,
    SessionStatus,
    Stage,
    StageReached,
    Start,
    Stop,
    TimingMode,
    WorkerInfo,
    decode,
    encode,
)

from .plans import small_plan

ROOT = Path(__file__).resolve().parents[3]


def test_a_plan_reads_back_as_itself() -> None:
    plan = small_plan(
        timing={"mode": "none"},
        provenance=Provenance(release="jax==0.6.2", lock=LockRef("jax-0.6.2-cpu", "c" * 64)),
        label="first run",
    )
    again = Plan.from_json(json.loads(json.dumps(plan.to_json())), "plan.json")
    assert again == plan
    assert again.timing_mode is TimingMode.NONE
    assert again.case_ids == ["demo.add::float32", "demo.add::int32"]
    assert again.case_timeout("demo.add::int32") == plan.timeouts.case_s
    assert again.case_timeout("demo.add::float32") == 60.0


@pytest.mark.parametrize("path", sorted((ROOT / "results" / "reference").glob("*/*/plan.json")))
def test_reference_plans_read_and_write_back_unchanged(path: Path) -> None:
    """Schema 1 (the first reference runs) and 4 (a release sweep's cells) alike."""
    obj = json.loads(path.read_text())
    plan = Plan.from_json(obj, str(path))
    assert plan.schema == obj["schema"] in (1, 4) and plan.to_json() == obj


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda p: p.update(schema=PLAN_SCHEMA + 1), "newer than this portbench"),
        (lambda p: p.pop("rules"), "'rules' is missing"),
        (lambda p: p.update(timing={"mode": "sometimes"}), "not one of adaptive, fixed, none"),
        (lambda p: p["functions"][0]["cases"].append(p["functions"][0]["cases"][0]), "twice"),
        (lambda p: p["functions"][0]["cases"][0].update(name="n" * 100_000), "case name of 100000"),
        (lambda p: p["functions"][0].update(function="f" * 300), "function name of 300"),
        (lambda p: p["rules"][0].update(category="nope"), "not one of type"),
        (lambda p: p["rules"][0].update(message="("), "not a regular expression"),
        (
            lambda p: p.update(prediction={"method": "guessed", "target": "tpu"}),
            "not one of lowered",
        ),
        (
            lambda p: p.update(prediction={"method": "lowered", "target": "x", "platform": "ipu"}),
            "cannot predict platform 'ipu'",
        ),
        (
            lambda p: p.update(prediction={"method": "lowered", "target": "x", "control": "gpu"}),
            "not one of cpu_run, cpu_twin",
        ),
        (lambda p: p["functions"][0].update(case_file="/etc/passwd"), "not a path under"),
        (lambda p: p["functions"][0].update(case_file="../../evil.py"), "not a path under"),
        (lambda p: p["functions"][0].update(case_file="cases/./x.py"), "not a path under"),
        (lambda p: p["functions"][0].update(case_file=""), "not a path under"),
    ],
)
def test_a_bad_plan_is_one_sentence(change, said: str) -> None:  # type: ignore[no-untyped-def]
    obj = small_plan().to_json()
    change(obj)
    with pytest.raises(PlanInvalid, match=said) as caught:
        Plan.from_json(obj, "plan.json")
    assert "\n" not in str(caught.value)


def test_long_names_are_refused_when_a_plan_is_made_too() -> None:
    with pytest.raises(PlanInvalid, match="give it a shorter name"):
        PlanCase("demo::" + "x" * 100_000, "x" * 100_000, 1)


def test_the_environment_step_and_evidence_kind() -> None:
    plan = small_plan()
    image = ImageRef("sha256:1", "portbench/python:x", True, "d" * 64, extra={"release": "x"})
    placed = plan.in_environment(CellEnvironment(image, "uv", "/portbench/manifests"))
    assert (placed.image, placed.installer, placed.manifest_root) == (
        image,
        "uv",
        "/portbench/manifests",
    )
    assert Plan.from_json(placed.to_json(), "p").image == image
    assert plan.evidence_kind is EvidenceKind.OBSERVED
    declared = replace(
        plan, prediction=PredictionSettings(PredictionMethod.DECLARED_KERNEL, "gpu-t4", "cuda")
    )
    assert declared.evidence_kind is EvidenceKind.DECLARED
    twin = PredictionSettings(PredictionMethod.XLA_CPU, "tpu-v3", "tpu", PredictionControl.CPU_TWIN)
    read = Plan.from_json(replace(plan, prediction=twin).to_json(), "p")
    assert read.prediction == twin and read.evidence_kind is EvidenceKind.PREDICTED


def _messages() -> list[object]:
    plan = small_plan()
    record = RecordFactory(plan).record(
        "demo.add::int32", CaseResult(Outcome.PASS), WorkerInfo(1, 0)
    )
    env = EnvDocument(
        "python/cpu/host", "python", "cpu", "host", "host", facts={"python": {"version": "3.8"}}
    )
    session = SessionLine(
        "python/cpu/host",
        SessionStatus.COMPLETE,
        None,
        integrity=Integrity(IntegrityVerdict.INTACT),
    )
    return [
        Hello(12, {"python": {"version": "3.8"}}, "3.8.18", "1.24.0"),
        Fatal("no device"),
        Start("demo.add::int32"),
        StageReached("demo.add::int32", Stage.CALL),
        Result("demo.add::int32", CaseResult(Outcome.SKIP, reason="no")),
        Bye(),
        Run("demo.add::int32", 0.5),
        Stop(),
        EnvMessage(env),
        Finished("demo.add::int32"),
        RecordMessage(record),
        SessionMessage(session),
    ]


@pytest.mark.parametrize("message", _messages(), ids=lambda m: type(m).__name__)
def test_every_message_reads_back_as_itself(message) -> None:  # type: ignore[no-untyped-def]
    allowed = WORKER_MESSAGES | COMMANDS | HOST_MESSAGES
    assert decode(encode(message), allowed) == message


def test_a_message_of_the_other_side_or_no_message_is_refused() -> None:
    with pytest.raises(MessageInvalid, match="never gets"):
        decode(encode(Run("demo.add::int32")), WORKER_MESSAGES)
    with pytest.raises(MessageInvalid, match="unknown message type"):
        decode(b'{"type": "hi"}', WORKER_MESSAGES)
    with pytest.raises(MessageInvalid, match="nested deeper"):
        decode(b'{"type": "start", "case": ' + b"[" * 2000 + b"]" * 2000 + b"}", WORKER_MESSAGES)
    with pytest.raises(MessageInvalid, match="a JSON list"):
        decode(b"[]", WORKER_MESSAGES)
    with pytest.raises(MessageInvalid, match="'case'"):
        decode(b'{"type": "start", "case": "' + b"c" * 2000 + b'"}', WORKER_MESSAGES)
    forged = decode(
        b'{"type": "result", "case": "a::b", "outcome": {"outcome": 1}}', WORKER_MESSAGES
    )
    assert isinstance(forged, Result) and forged.result.outcome is Outcome.ERROR


def test_env_facts_never_trust_a_type() -> None:
    env = EnvDocument.from_json(
        {
            "schema": 1,
            "kind": "env",
            "cell": "c",
            "device": [],
            "python": {"version": 3},
            "packages": {"a": "1", "b": {}},
        },
        "env.json",
    )
    assert (env.device_name, env.python_version, env.packages) == ("", "", {"a": "1"})
