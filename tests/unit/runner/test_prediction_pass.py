"""One predicted pass over several targets (#30): the plan's sibling cells, the worker's
sibling results through the pipe, and the supervisor's records of each sibling cell."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from portbench_runner import prediction
from portbench_runner.contract import (
    WORKER_MESSAGES,
    CaseResult,
    Category,
    ErrorInfo,
    EvidenceKind,
    Outcome,
    Plan,
    PlanInvalid,
    PredictionMethod,
    PredictionSettings,
    PredictionVerdict,
    Result,
    SiblingTarget,
    Stage,
    Timing,
    decode,
    encode,
    timeout_result,
)
from portbench_runner.supervisor import Supervisor

from ..contract.plans import small_plan

PASS = PredictionSettings(
    PredictionMethod.LOWERED,
    "tpu",
    "tpu",
    siblings=(SiblingTarget("cuda", "cuda"), SiblingTarget("gpu-t4", "cuda")),
)


def _plan() -> Plan:
    return small_plan(
        cell="jax/tpu-predicted/current",
        rerun_prefix="portbench bench --framework jax --accelerator tpu --predict",
        prediction=PASS,
    )


def test_a_pass_names_a_cell_per_target_and_looks_once_per_platform() -> None:
    plan = _plan()
    cuda, t4 = plan.siblings()
    assert (cuda.cell, t4.cell) == ("jax/cuda-predicted/current", "jax/gpu-t4-predicted/current")
    assert t4.rerun_prefix.endswith("--accelerator gpu-t4 --predict")
    assert t4.prediction == PredictionSettings(PredictionMethod.LOWERED, "gpu-t4", "cuda")
    assert t4.case_ids == plan.case_ids and not t4.siblings()
    assert PASS.platforms == ("tpu", "cuda")  # gpu-t4 is lowered for cuda once
    assert Plan.from_json(json.loads(json.dumps(plan.to_json())), "p") == plan
    with pytest.raises(PlanInvalid, match="targets once each"):
        PredictionSettings(PredictionMethod.LOWERED, "tpu", siblings=(SiblingTarget("tpu"),))


def _fold(result: CaseResult, looks: dict[str, dict[str, object]]) -> CaseResult:
    """What the worker does: one control, folded with each target's look."""

    def one(settings: PredictionSettings) -> CaseResult:
        return prediction.fold(
            result,
            looks[settings.looks_at],
            settings,
            lambda exc, stage: ("not_implemented", None),
            lambda exc: ErrorInfo(type(exc).__name__, str(exc)),
        )

    return replace(one(PASS), siblings=tuple(map(one, PASS.sibling_settings())))


def _supervisor(tmp_path: object, plan: Plan) -> Supervisor:
    return Supervisor(plan, "plan.json", str(tmp_path), out_fd=2)


def test_each_sibling_cell_gets_its_own_record_from_the_same_control(tmp_path: object) -> None:
    control = CaseResult(Outcome.PASS, timing=Timing(2.0, None))
    evidence = {"probe": "jax-lowering", "platform": "cuda", "seen": True, "fallback": True}
    evidence["host_work"] = [{"kind": "hybrid_kernel", "what": "cuhybrid_eig_real"}]
    looks = {
        "tpu": prediction.look_refused(NotImplementedError("no rule for eig on tpu")),
        "cuda": prediction.look_host_work(evidence),
    }
    sent = _fold(control, looks)
    message = decode(encode(Result("demo.add::int32", sent)), WORKER_MESSAGES)
    assert isinstance(message, Result) and len(message.result.siblings) == 2
    sup = _supervisor(tmp_path, _plan())
    record = sup.record("demo.add::int32", message.result, 7, 0)
    cuda, t4 = sup.sibling_records(record)
    assert (record.outcome, record.category) == (Outcome.FAIL, Category.NOT_IMPLEMENTED)
    for sibling in (cuda, t4):
        assert (sibling.outcome, sibling.category) == (Outcome.FAIL, Category.FALLBACK)
        assert sibling.prediction is not None
        assert sibling.prediction.verdict is PredictionVerdict.FAIL
        assert sibling.evidence is not None and sibling.evidence.platform == "cuda"
        assert (sibling.timing, sibling.started_at) == (record.timing, record.started_at)
        assert sibling.evidence_kind is EvidenceKind.PREDICTED
    assert (cuda.cell, cuda.prediction.target) == ("jax/cuda-predicted/current", "cuda")
    assert t4.rerun.startswith("portbench bench --framework jax --accelerator gpu-t4 --predict")
    assert sup.sibling_records(record)[0].prediction.verdict is None  # sent once, then gone


def test_a_case_that_could_not_report_is_the_same_in_every_cell(tmp_path: object) -> None:
    sup = _supervisor(tmp_path, _plan())
    record = sup.record("demo.add::int32", timeout_result(Stage.CALL, 5.0, ""), 7, 0)
    for sibling in sup.sibling_records(record):
        assert (sibling.outcome, sibling.category) == (Outcome.FAIL, Category.TIMEOUT)
        assert sibling.reason == record.reason
        assert sibling.prediction is not None and sibling.prediction.verdict is None


def test_a_sibling_result_with_siblings_of_its_own_is_malformed() -> None:
    nested = CaseResult(
        Outcome.PASS,
        siblings=(CaseResult(Outcome.PASS, siblings=(CaseResult(Outcome.PASS),)),),
    )
    message = decode(encode(Result("demo.add::int32", nested)), WORKER_MESSAGES)
    assert isinstance(message, Result) and message.result.outcome is Outcome.ERROR
    nameless = CaseResult(Outcome.PASS, siblings=(CaseResult(Outcome.PASS),))
    message = decode(encode(Result("demo.add::int32", nameless)), WORKER_MESSAGES)
    assert isinstance(message, Result) and message.result.outcome is Outcome.ERROR
