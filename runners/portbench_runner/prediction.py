"""Predicted cells: what a target would do, learned on this machine's CPU.

A predicted cell runs each case for the CPU as a control, and looks at the target another
way: the call lowered for the target's platform (JAX), the case run on torch_xla's CPU
client (torch), the kernels the target declares and XLA on the CPU (TensorFlow). The look
happens in ``Context.measure``, outside the timed call; :func:`fold` turns the control's
outcome and the look into the record's outcome:

- the control fails: ``skip``, "not predictable" (never a predicted failure);
- the look was refused by the target (no lowering, no kernel): ``fail`` at stage ``call``;
- the look found host work (a hybrid kernel, an ``aten::`` fallback): ``fail`` as ``fallback``;
- the look could not be made here (a CPU jaxlib lacks GPU kernel descriptors): ``skip``,
  "not predictable", with the reason;
- otherwise ``pass``: the call lowers (or runs on the XLA CPU client) with no host work.
  It never means the case passes its check on the device.

Each record of such a cell says so: ``evidence_kind`` "predicted" (or "declared") and a
``prediction`` (the contract's :class:`Prediction`: method, target, platform, verdict, the
control's outcome, a note). The worker sends verdict, control and note; the supervisor's
record factory takes the method, target, platform and evidence kind from the plan
(:class:`PredictionSettings`), never from the worker.

Standard library only: this runs inside every cell.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Dict, Optional, Tuple

from .contract import (
    MESSAGE_CHARS,
    REASON_CHARS,
    CaseResult,
    Category,
    ErrorInfo,
    Evidence,
    Outcome,
    Prediction,
    PredictionControl,
    PredictionSettings,
    PredictionVerdict,
    Stage,
    clip,
    strict,
)

__all__ = [
    "NOTE_CHARS",
    "fold",
    "look_clean",
    "look_host_work",
    "look_limit",
    "look_refused",
]

#: A prediction's note: one line, bounded well below the reader's limit.
NOTE_CHARS = 300


# -- what a look found (built by the adapters, read by fold) --------------------------


def look_clean(note: str = "") -> Dict[str, Any]:
    """The target takes the call: it lowers (or runs) with no host work."""
    return {"status": "clean", "note": note}


def look_refused(exc: BaseException, note: str = "") -> Dict[str, Any]:
    """The target refuses the call: ``exc`` is what the framework raised for it."""
    return {"status": "refused", "exception": exc, "note": note}


def look_host_work(evidence: Dict[str, Any]) -> Dict[str, Any]:
    """The call would run partly on the host (``evidence`` as ``fallback.evidence`` makes it)."""
    return {"status": "host_work", "evidence": evidence}


def look_limit(why: str) -> Dict[str, Any]:
    """The look cannot be made on this machine: nothing is predicted."""
    return {"status": "limit", "why": why}


def _line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def _first_line(result: CaseResult) -> str:
    text = result.error.message if result.error is not None else ""
    return _line(text or result.reason or "")


def _not_predictable(result: CaseResult, why: str) -> CaseResult:
    """A case the CPU control fails, or one the look cannot be made for: skipped, with what
    was measured (its timing, evidence, the CPU twin) kept."""
    return CaseResult(
        Outcome.SKIP,
        reason=clip(f"not predictable: {why}", REASON_CHARS),
        timing=result.timing,
        evidence=result.evidence,
        cpu_reference=result.cpu_reference,
        started_at=result.started_at,
        duration_s=result.duration_s,
    )


def _host_work_text(evidence: Dict[str, Any]) -> str:
    items = evidence.get("host_work") or []
    listed = "; ".join(
        f"{item.get('kind')} {item.get('what')}" for item in items[:4] if isinstance(item, dict)
    )
    return f"work would run on the host ({evidence.get('platform')}): {listed}"


def _predicted_fallback(result: CaseResult, evidence: Dict[str, Any], rule: str) -> CaseResult:
    try:
        read: Optional[Evidence] = Evidence.from_json(strict(evidence), "evidence")
    except Exception:  # an adapter's evidence that does not read: the failure stands
        read = result.evidence
    return replace(
        result,
        outcome=Outcome.FAIL,
        stage=Stage.CALL,
        category=Category.FALLBACK,
        rule=rule,
        evidence=read,
        error=ErrorInfo(
            "portbench.PredictedFallback", clip(_host_work_text(evidence), MESSAGE_CHARS)
        ),
    )


Classify = Callable[[BaseException, str], Tuple[str, Optional[str]]]


def fold(
    result: CaseResult,
    look: Optional[Dict[str, Any]],
    settings: Optional[PredictionSettings],
    classify: Classify,
    error: Callable[[BaseException], ErrorInfo],
) -> CaseResult:
    """The result of a predicted case from its control's ``result`` and the ``look``.

    ``classify(exc, stage)`` gives (category, rule) by the framework's rules and
    ``error(exc)`` the bounded error, as for an observed failure. Where the settings'
    control is ``cpu_twin`` (torch_xla) the case itself ran on the XLA device and its control
    is the CPU twin (``cpu_reference``); otherwise the case ran on the CPU and ``look`` is
    the prediction. An observed cell's result (``settings`` None) is returned as it is.
    """
    if settings is None:
        return result
    if settings.control is PredictionControl.CPU_TWIN:
        out, verdict, control, why = _fold_twin(result)
    else:
        out, verdict, control, why = _fold_look(result, look, classify, error)
    found = Prediction(
        settings.method,
        settings.target,
        control,
        clip(why, NOTE_CHARS) if why else None,
        settings.platform,
        verdict,
    )
    return replace(out, prediction=found)


_Folded = Tuple[CaseResult, Optional[PredictionVerdict], Optional[Outcome], str]


def _fold_look(
    result: CaseResult,
    look: Optional[Dict[str, Any]],
    classify: Classify,
    error: Callable[[BaseException], ErrorInfo],
) -> _Folded:
    control = result.outcome
    if control is Outcome.FAIL:
        why = f"the CPU control fails ({_first_line(result)[:200]})"
        return _not_predictable(result, why), PredictionVerdict.NOT_PREDICTABLE, control, why
    if control is not Outcome.PASS:
        return result, None, control, _first_line(result)
    if look is None:
        why = "the case made no measured call to look at"
        return _not_predictable(result, why), PredictionVerdict.NOT_PREDICTABLE, control, why
    status = look.get("status")
    if status == "refused":
        exc = look["exception"]
        category, rule = classify(exc, "call")
        failed = replace(
            result,
            outcome=Outcome.FAIL,
            stage=Stage.CALL,
            category=Category(category),
            rule=rule,
            error=error(exc),
        )
        why = f"{type(exc).__name__}: {_line(str(exc))}"
        return failed, PredictionVerdict.FAIL, control, why
    if status == "host_work":
        failed = _predicted_fallback(result, look["evidence"], "predict:host-work")
        return failed, PredictionVerdict.FAIL, control, "host work"
    if status == "limit":
        why = str(look.get("why") or "the look cannot be made here")
        return _not_predictable(result, why), PredictionVerdict.NOT_PREDICTABLE, control, why
    return result, PredictionVerdict.PASS, control, str(look.get("note") or "no host work")


def _fold_twin(result: CaseResult) -> _Folded:
    twin = result.cpu_reference
    twin_outcome = None if twin is None else twin.outcome
    if twin is not None and twin.outcome in (Outcome.FAIL, Outcome.ERROR):
        why = f"the case fails on the CPU too ({twin.outcome}: {(twin.message or '')[:160]})"
        return _not_predictable(result, why), PredictionVerdict.NOT_PREDICTABLE, twin.outcome, why
    evidence = result.evidence
    if (
        evidence is not None
        and evidence.fallback is True
        and (result.outcome is Outcome.PASS or result.stage is Stage.CHECK)
    ):
        # Ops left XLA: that is the prediction, whatever the output compared to.
        failed = _predicted_fallback(result, evidence.to_json(), "predict:aten-fallback")
        control = twin_outcome or Outcome.PASS
        return failed, PredictionVerdict.FAIL, control, "ops ran outside XLA (aten:: fallback)"
    if result.outcome is Outcome.FAIL and result.stage is Stage.CHECK:
        # XLA's CPU client computes as XLA:CPU does, not as the TPU: an output that differs
        # says nothing of the TPU's numerics.
        why = f"an output differs on XLA's CPU client ({_first_line(result)[:160]})"
        return (
            _not_predictable(result, why),
            PredictionVerdict.NOT_PREDICTABLE,
            twin_outcome,
            why,
        )
    if result.outcome is Outcome.PASS:
        return result, PredictionVerdict.PASS, twin_outcome, "ran on the XLA CPU client"
    if result.outcome is Outcome.FAIL:
        return result, PredictionVerdict.FAIL, twin_outcome, _first_line(result)
    return result, None, twin_outcome, _first_line(result)
