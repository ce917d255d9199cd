"""How a predicted case's record is made from its CPU control and the look (prediction.py),
and what the supervisor lets through."""

from __future__ import annotations

from typing import Any

from portbench_runner import prediction
from portbench_runner.adapters.jax_adapter import LoweringUnsupported, lower_for, lowering_limit
from portbench_runner.supervisor import _sanitize

LOWERED = {"target": "tpu", "method": "lowered", "platform": "tpu", "control": "cpu_run"}
XLA = {"target": "tpu-v3", "method": "xla_cpu", "platform": "tpu", "control": "cpu_twin"}


def _classify(exc: BaseException, stage: str) -> list[Any]:
    return ["not_implemented", "test-rule"]


def _error(exc: BaseException) -> dict[str, str]:
    return {"type": type(exc).__name__, "message": str(exc), "traceback": ""}


def _fold(fields: dict[str, Any], look: Any, settings: Any = LOWERED) -> dict[str, Any]:
    return prediction.fold(fields, look, settings, _classify, _error)


def test_a_refused_lowering_is_a_predicted_failure() -> None:
    refused = prediction.look_refused(NotImplementedError("no rule for eig on tpu"))
    out = _fold({"outcome": "pass", "timing": {"cold_ms": 1.0}}, refused)
    assert (out["outcome"], out["stage"], out["category"]) == ("fail", "call", "not_implemented")
    assert out["evidence_kind"] == "predicted"
    assert out["prediction"]["verdict"] == "fail"
    assert out["prediction"]["control"] == "pass"
    assert "eig" in out["error"]["message"]


def test_a_failing_cpu_control_is_not_predictable_never_a_predicted_failure() -> None:
    control = {
        "outcome": "fail",
        "stage": "check",
        "category": "precision",
        "error": {"type": "AssertionError", "message": "values differ", "traceback": ""},
    }
    # Even with a look that the target refused, the control's failure wins.
    out = _fold(control, prediction.look_refused(NotImplementedError("x")))
    assert out["outcome"] == "skip"
    assert out["reason"].startswith("not predictable: the CPU control fails (values differ")
    assert out["prediction"]["verdict"] == "not_predictable"
    assert out["prediction"]["control"] == "fail"
    assert "category" not in out


def test_a_limit_of_the_look_is_not_predictable() -> None:
    out = _fold({"outcome": "pass"}, prediction.look_limit("a CPU jaxlib lacks GPU kernels"))
    assert out["outcome"] == "skip"
    assert out["prediction"]["verdict"] == "not_predictable"


def test_host_work_is_a_predicted_fallback_and_a_clean_look_a_predicted_pass() -> None:
    evidence = {"probe": "jax-lowering", "platform": "cuda", "seen": True, "fallback": True}
    evidence["host_work"] = [{"kind": "hybrid_kernel", "what": "cuhybrid_eig_real"}]
    out = _fold({"outcome": "pass"}, prediction.look_host_work(evidence))
    assert (out["outcome"], out["category"]) == ("fail", "fallback")
    assert "cuhybrid_eig_real" in out["error"]["message"]
    clean = _fold({"outcome": "pass"}, prediction.look_clean("lowers"))
    assert clean["outcome"] == "pass" and clean["prediction"]["verdict"] == "pass"


def test_skips_and_errors_stay_what_they_are() -> None:
    out = _fold({"outcome": "skip", "reason": "absent in this release"}, None)
    assert out["outcome"] == "skip" and out["prediction"]["verdict"] is None


def test_torch_xla_twin_failure_is_not_predictable_and_aten_fallback_fails() -> None:
    twin_failed = {
        "outcome": "fail",
        "stage": "call",
        "category": "other",
        "cpu_reference": {"outcome": "fail", "message": "bad input"},
    }
    out = _fold(twin_failed, None, XLA)
    assert out["outcome"] == "skip" and out["prediction"]["verdict"] == "not_predictable"
    fell_back = {
        "outcome": "pass",
        "cpu_reference": {"outcome": "pass"},
        "evidence": {
            "probe": "torch_xla-counters",
            "platform": "CPU",
            "fallback": True,
            "host_work": [{"kind": "aten_fallback", "what": "aten::poisson +1"}],
        },
    }
    out = _fold(fell_back, None, XLA)
    assert (out["outcome"], out["category"]) == ("fail", "fallback")
    assert "aten::poisson" in out["error"]["message"]


def test_an_output_differing_on_the_xla_cpu_client_is_not_predictable() -> None:
    mismatch = {
        "outcome": "fail",
        "stage": "check",
        "category": "precision",
        "error": {"type": "DifferentialMismatch", "message": "3 of 4 differ", "traceback": ""},
        "cpu_reference": {"outcome": "pass"},
    }
    out = _fold(mismatch, None, XLA)
    assert out["outcome"] == "skip" and out["prediction"]["verdict"] == "not_predictable"
    assert "differs on XLA's CPU client" in out["reason"]


def test_an_observed_cell_is_left_as_it_is() -> None:
    fields = {"outcome": "pass"}
    assert _fold(fields, prediction.look_clean(), None) is fields


def test_the_supervisor_keeps_the_prediction_and_drops_a_planted_one() -> None:
    out = _fold({"outcome": "pass"}, prediction.look_clean())
    kept = _sanitize(out)
    assert kept["evidence_kind"] == "predicted"
    assert kept["prediction"]["verdict"] == "pass"
    planted = _sanitize({"outcome": "pass", "prediction": {"method": "magic"}})
    assert "prediction" not in planted and "evidence_kind" not in planted
    big = _sanitize({"outcome": "pass", "prediction": {**out["prediction"], "why": "x" * 10**6}})
    assert len(big["prediction"]["why"]) <= prediction.WHY_CHARS


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
