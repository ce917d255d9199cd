"""How a predicted case's result is made from its CPU control and the look (prediction.py),
and how the supervisor's record factory takes what a record says of its prediction from the
plan, never from the worker."""

from __future__ import annotations

import json
from typing import Any

from portbench_runner import prediction
from portbench_runner.adapters.jax_adapter import LoweringUnsupported, lower_for, lowering_limit
from portbench_runner.contract import (
    WORKER_MESSAGES,
    CaseRecord,
    CaseResult,
    Category,
    CpuReference,
    ErrorInfo,
    Evidence,
    EvidenceKind,
    HostWork,
    Outcome,
    Prediction,
    PredictionControl,
    PredictionMethod,
    PredictionSettings,
    PredictionVerdict,
    RecordFactory,
    Result,
    Stage,
    Timing,
    WorkerInfo,
    decode,
    encode,
)

from ..contract.plans import small_plan

LOWERED = PredictionSettings(PredictionMethod.LOWERED, "tpu", "tpu")
XLA = PredictionSettings(PredictionMethod.XLA_CPU, "tpu-v3", "tpu", PredictionControl.CPU_TWIN)
NOT_PREDICTABLE = PredictionVerdict.NOT_PREDICTABLE


def _classify(exc: BaseException, stage: str) -> tuple[str, str | None]:
    return "not_implemented", "test-rule"


def _error(exc: BaseException) -> ErrorInfo:
    return ErrorInfo(type(exc).__name__, str(exc))


def _fold(
    result: CaseResult, look: Any, settings: PredictionSettings | None = LOWERED
) -> CaseResult:
    return prediction.fold(result, look, settings, _classify, _error)


def _said(result: CaseResult) -> Prediction:
    assert result.prediction is not None
    return result.prediction


PASSED = CaseResult(Outcome.PASS, timing=Timing(1.0, None))


def test_a_refused_lowering_is_a_predicted_failure() -> None:
    refused = prediction.look_refused(NotImplementedError("no rule for eig on tpu"))
    out = _fold(PASSED, refused)
    assert (out.outcome, out.stage, out.category) == (
        Outcome.FAIL,
        Stage.CALL,
        Category.NOT_IMPLEMENTED,
    )
    assert _said(out).verdict is PredictionVerdict.FAIL
    assert _said(out).control is Outcome.PASS
    assert out.error is not None and "eig" in out.error.message
    assert out.timing == PASSED.timing


def test_a_failing_cpu_control_is_not_predictable_never_a_predicted_failure() -> None:
    control = CaseResult(
        Outcome.FAIL,
        Stage.CHECK,
        Category.PRECISION,
        error=ErrorInfo("AssertionError", "values differ"),
    )
    # Even with a look that the target refused, the control's failure wins.
    out = _fold(control, prediction.look_refused(NotImplementedError("x")))
    assert out.outcome is Outcome.SKIP and out.category is None
    assert (out.reason or "").startswith("not predictable: the CPU control fails (values differ")
    assert _said(out).verdict is NOT_PREDICTABLE
    assert _said(out).control is Outcome.FAIL


def test_a_limit_of_the_look_is_not_predictable() -> None:
    out = _fold(PASSED, prediction.look_limit("a CPU jaxlib lacks GPU kernels"))
    assert out.outcome is Outcome.SKIP
    assert _said(out).verdict is NOT_PREDICTABLE
    assert _said(out).note == "a CPU jaxlib lacks GPU kernels"


def test_host_work_is_a_predicted_fallback_and_a_clean_look_a_predicted_pass() -> None:
    evidence = {"probe": "jax-lowering", "platform": "cuda", "seen": True, "fallback": True}
    evidence["host_work"] = [{"kind": "hybrid_kernel", "what": "cuhybrid_eig_real"}]
    out = _fold(PASSED, prediction.look_host_work(evidence))
    assert (out.outcome, out.category) == (Outcome.FAIL, Category.FALLBACK)
    assert out.error is not None and "cuhybrid_eig_real" in out.error.message
    assert out.evidence is not None and out.evidence.host_work[0].what == "cuhybrid_eig_real"
    clean = _fold(PASSED, prediction.look_clean("lowers"))
    assert clean.outcome is Outcome.PASS and _said(clean).verdict is PredictionVerdict.PASS


def test_skips_and_errors_stay_what_they_are() -> None:
    out = _fold(CaseResult(Outcome.SKIP, reason="absent in this release"), None)
    assert out.outcome is Outcome.SKIP and _said(out).verdict is None


def test_torch_xla_twin_failure_is_not_predictable_and_aten_fallback_fails() -> None:
    twin_failed = CaseResult(
        Outcome.FAIL,
        Stage.CALL,
        Category.OTHER,
        cpu_reference=CpuReference(Outcome.FAIL, message="bad input"),
    )
    out = _fold(twin_failed, None, XLA)
    assert out.outcome is Outcome.SKIP and _said(out).verdict is NOT_PREDICTABLE
    fell_back = CaseResult(
        Outcome.PASS,
        cpu_reference=CpuReference(Outcome.PASS),
        evidence=Evidence(
            "torch_xla-counters",
            "CPU",
            True,
            True,
            (HostWork("aten_fallback", "aten::poisson +1"),),
        ),
    )
    out = _fold(fell_back, None, XLA)
    assert (out.outcome, out.category) == (Outcome.FAIL, Category.FALLBACK)
    assert out.error is not None and "aten::poisson" in out.error.message


def test_an_output_differing_on_the_xla_cpu_client_is_not_predictable() -> None:
    mismatch = CaseResult(
        Outcome.FAIL,
        Stage.CHECK,
        Category.PRECISION,
        error=ErrorInfo("DifferentialMismatch", "3 of 4 differ"),
        cpu_reference=CpuReference(Outcome.PASS),
    )
    out = _fold(mismatch, None, XLA)
    assert out.outcome is Outcome.SKIP and _said(out).verdict is NOT_PREDICTABLE
    assert "differs on XLA's CPU client" in (out.reason or "")


def test_an_observed_cell_is_left_as_it_is() -> None:
    assert _fold(PASSED, prediction.look_clean(), None) is PASSED


def _through_the_pipe(result: CaseResult) -> CaseResult:
    message = decode(encode(Result("demo.add::int32", result)), WORKER_MESSAGES)
    assert isinstance(message, Result)
    return message.result


def test_the_record_takes_method_target_and_kind_from_the_plan_never_the_worker() -> None:
    found = _through_the_pipe(_fold(PASSED, prediction.look_clean("lowers for tpu")))
    plan = small_plan(prediction=LOWERED)
    record = RecordFactory(plan).record("demo.add::int32", found, WorkerInfo(1, 0))
    assert record.evidence_kind is EvidenceKind.PREDICTED
    assert record.prediction == Prediction(
        PredictionMethod.LOWERED,
        "tpu",
        Outcome.PASS,
        "lowers for tpu",
        "tpu",
        PredictionVerdict.PASS,
    )
    assert CaseRecord.from_json(record.to_json()) == record
    # A worker that claims another method or target is not believed.
    forged = CaseResult(
        Outcome.PASS,
        prediction=Prediction(
            PredictionMethod.DISPATCHER, "gpu-h100", verdict=PredictionVerdict.PASS
        ),
    )
    made = RecordFactory(plan).record("demo.add::int32", forged, WorkerInfo(1, 0))
    assert made.prediction is not None
    assert (made.prediction.method, made.prediction.target) == (PredictionMethod.LOWERED, "tpu")
    assert made.evidence_kind is EvidenceKind.PREDICTED
    # An observed cell's record never carries a prediction, whatever the worker sends.
    observed = RecordFactory(small_plan()).record("demo.add::int32", forged, WorkerInfo(1, 0))
    assert observed.prediction is None and observed.evidence_kind is EvidenceKind.OBSERVED
    # A crash in a predicted cell: the plan's prediction, with no verdict.
    crashed = RecordFactory(plan).record(
        "demo.add::int32", CaseResult(Outcome.FAIL, Stage.CALL, Category.CRASH), WorkerInfo(1, 0)
    )
    assert crashed.prediction is not None and crashed.prediction.verdict is None


def test_a_prediction_that_does_not_read_makes_the_result_malformed() -> None:
    line = json.loads(encode(Result("demo.add::int32", PASSED)))
    line["outcome"]["prediction"] = {"method": "magic", "target": "x"}
    message = decode(json.dumps(line).encode(), WORKER_MESSAGES)
    assert isinstance(message, Result) and message.result.outcome is Outcome.ERROR
    long_note = CaseResult(
        Outcome.PASS,
        prediction=Prediction(PredictionMethod.LOWERED, "tpu", note="x" * 5000),
    )
    assert _through_the_pipe(long_note).outcome is Outcome.ERROR
    assert len(_said(_fold(PASSED, prediction.look_clean("y" * 10**4))).note or "") <= (
        prediction.NOTE_CHARS
    )


class _OldJax:
    """A jax that predates ``trace`` and the private lowering platform (before ~0.4.10)."""

    __version__ = "0.4.1"

    @staticmethod
    def default_backend() -> str:
        return "cpu"


class _OldJitted:
    def __init__(self) -> None:
        self.lowered_with: list[dict[str, Any]] = []

    def lower(self, *args: Any, **kwargs: Any) -> str:
        if kwargs:
            raise TypeError(f"f() got an unexpected keyword argument {next(iter(kwargs))!r}")
        self.lowered_with.append(kwargs)
        return "cpu program"


def test_an_old_jax_lowers_for_its_own_platform_or_says_it_cannot() -> None:
    jitted = _OldJitted()
    assert lower_for(_OldJax(), jitted, [], "cpu") == "cpu program"
    try:
        lower_for(_OldJax(), jitted, [], "tpu")
    except LoweringUnsupported as exc:
        sentence = str(exc)
    else:
        raise AssertionError("an old jax lowered for tpu")
    assert sentence.startswith("jax 0.4.1 lowers for its own backend (cpu) only")
    assert sentence.count(".") <= 4 and "\n" not in sentence
    assert lowering_limit(LoweringUnsupported(sentence), "tpu") == sentence


def test_a_cpu_jaxlib_without_gpu_descriptors_is_a_limit_not_a_failure() -> None:
    exc = AttributeError("'NoneType' object has no attribute 'build_gesvdj_descriptor'")
    assert "GPU kernel descriptors" in (lowering_limit(exc, "cuda") or "")
    assert lowering_limit(NotImplementedError("no rule for eig on tpu"), "tpu") is None


def test_xla_refusing_only_the_calls_results_is_a_limit_of_the_look() -> None:
    from portbench_runner.adapters.tf_kernels import xla_look_limit

    retval = (
        "Detected unsupported operations when trying to compile graph __inference_call_1 on "
        "XLA_CPU_JIT: _Retval (No registered '_Retval' OpKernel for XLA_CPU_JIT devices "
        "compatible with node {{node identity_RetVal}})"
    )
    assert "no XLA values" in (xla_look_limit(retval) or "")
    op = retval.replace("_Retval", "AsString")
    assert xla_look_limit(op) is None
