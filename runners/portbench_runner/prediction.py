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

Each record of such a cell says so: ``evidence_kind`` "predicted" and a ``prediction``
object (method, target, platform, verdict, the control's outcome, why). These are the
fields issue #26's contract defines (``EvidenceKind``, ``evidence_kind``, ``prediction``);
until it lands they live here, so the switch is one import.

Standard library only: this runs inside every cell.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional

from .bounds import MESSAGE_CHARS, REASON_CHARS, clip

__all__ = [
    "EVIDENCE_KINDS",
    "METHODS",
    "VERDICTS",
    "clean_prediction",
    "evidence_kind_of",
    "fold",
    "look_clean",
    "look_host_work",
    "look_limit",
    "look_refused",
    "settings_from_plan",
]

#: How a record knows what it says (the contract's ``EvidenceKind``).
EVIDENCE_KINDS = ("observed", "predicted", "declared")
#: How a predicted record was made (the contract's ``PredictionMethod``): lowered for the
#: platform (JAX), run on XLA's CPU client (torch_xla, ``PJRT_DEVICE=CPU``) or compiled with
#: XLA on the CPU (TensorFlow for a TPU), checked against the kernels the target declares
#: (TensorFlow's kernel registry: ``declared_kernel``; PyTorch's dispatcher: ``dispatcher``).
METHODS = ("lowered", "xla_cpu", "declared_kernel", "dispatcher")
#: Methods whose records are ``declared`` evidence (a registry says so), not ``predicted``.
DECLARED_METHODS = ("declared_kernel", "dispatcher")
VERDICTS = ("pass", "fail", "not_predictable")
WHY_CHARS = 300


def evidence_kind_of(method: str) -> str:
    """``declared`` for a registry's word (declared kernels, the dispatcher), else ``predicted``."""
    return "declared" if method in DECLARED_METHODS else "predicted"


def settings_from_plan(plan: Mapping[str, Any]) -> Optional[Dict[str, str]]:
    """The plan's ``predict`` object (target, method, platform), or None for an observed cell."""
    given = plan.get("predict")
    if not isinstance(given, dict):
        return None
    method = given.get("method")
    if method not in METHODS:
        return None
    return {
        "target": str(given.get("target") or "?"),
        "method": str(method),
        "platform": str(given.get("platform") or given.get("target") or "?"),
        # cpu_run: the case runs on the CPU and the look predicts; cpu_twin: the case runs
        # on XLA's CPU client and its CPU twin (the differential run) is the control.
        "control": "cpu_twin" if given.get("control") == "cpu_twin" else "cpu_run",
    }


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


def _prediction(
    settings: Mapping[str, str], verdict: Optional[str], control: str, why: str
) -> Dict[str, Any]:
    return {
        "method": settings["method"],
        "target": settings["target"],
        "platform": settings["platform"],
        "verdict": verdict,
        "control": control,
        "why": why[:WHY_CHARS],
    }


def _first_line(fields: Mapping[str, Any]) -> str:
    error = fields.get("error")
    text = error.get("message", "") if isinstance(error, dict) else ""
    text = text or str(fields.get("reason") or "")
    lines = str(text).strip().splitlines()
    return lines[0] if lines else ""


def _not_predictable(fields: Dict[str, Any], why: str) -> Dict[str, Any]:
    """A case the CPU control fails, or one the look cannot be made for: skipped, its
    control's error kept under ``prediction.control_error`` for reading."""
    out = {
        "outcome": "skip",
        "reason": clip(f"not predictable: {why}", REASON_CHARS),
        "timing": fields.get("timing"),
    }
    for key in ("started_at", "duration_s", "evidence"):
        if key in fields:
            out[key] = fields[key]
    return out


def fold(
    fields: Dict[str, Any],
    look: Optional[Dict[str, Any]],
    settings: Optional[Mapping[str, str]],
    classify: Callable[[BaseException, str], List[Any]],
    error_fields: Callable[[BaseException], Dict[str, str]],
) -> Dict[str, Any]:
    """The record fields of a predicted case from its control's ``fields`` and the ``look``.

    ``classify(exc, stage)`` gives (category, rule) by the framework's rules and
    ``error_fields(exc)`` the bounded error object, as for an observed failure. Where the
    settings' control is ``cpu_twin`` (torch_xla) the case itself ran on the XLA device and
    its control is the CPU twin (``cpu_reference``); otherwise the case ran on the CPU and
    ``look`` is the prediction. An observed cell (``settings`` None) is returned as it is.
    """
    if settings is None:
        return fields
    control = str(fields.get("outcome"))
    if settings.get("control") == "cpu_twin":
        twin = fields.get("cpu_reference")
        twin_outcome = twin.get("outcome") if isinstance(twin, dict) else None
        if twin_outcome in ("fail", "error"):
            message = str(twin.get("message") or "") if isinstance(twin, dict) else ""
            why = f"the case fails on the CPU too ({twin_outcome}: {message[:160]})"
            out = _not_predictable(fields, why)
            verdict: Optional[str] = "not_predictable"
            control = str(twin_outcome)
        elif (fields.get("evidence") or {}).get("fallback") is True and (
            control == "pass" or fields.get("stage") == "check"
        ):
            # Ops left XLA: that is the prediction, whatever the output compared to.
            out = dict(fields)
            out.update(
                {
                    "outcome": "fail",
                    "stage": "call",
                    "category": "fallback",
                    "rule": "predict:aten-fallback",
                    "error": {
                        "type": "portbench.PredictedFallback",
                        "message": clip(_host_work_text(fields["evidence"]), MESSAGE_CHARS),
                        "traceback": "",
                    },
                }
            )
            verdict, why = "fail", "ops ran outside XLA (aten:: fallback)"
            control = str(twin_outcome or "pass")
        elif control == "fail" and fields.get("stage") == "check":
            # XLA's CPU client computes as XLA:CPU does, not as the TPU: an output that
            # differs says nothing of the TPU's numerics.
            why = f"an output differs on XLA's CPU client ({_first_line(fields)[:160]})"
            out = _not_predictable(fields, why)
            verdict, control = "not_predictable", str(twin_outcome or "?")
        elif control in ("pass", "fail"):
            out = dict(fields)
            verdict = control
            why = _first_line(fields) if control == "fail" else "ran on the XLA CPU client"
            control = str(twin_outcome or "?")
        else:
            out, verdict, why = dict(fields), None, _first_line(fields)
        out["evidence_kind"] = evidence_kind_of(settings["method"])
        out["prediction"] = _prediction(settings, verdict, control, why)
        return out

    if control == "fail":
        out = _not_predictable(fields, f"the CPU control fails ({_first_line(fields)[:200]})")
        verdict, why = "not_predictable", "the CPU control fails"
    elif control != "pass":
        out, verdict, why = dict(fields), None, _first_line(fields)
    elif look is None:
        out = _not_predictable(fields, "the case made no measured call to look at")
        verdict, why = "not_predictable", "no look"
    elif look["status"] == "refused":
        exc = look["exception"]
        category, rule = classify(exc, "call")
        out = dict(fields)
        out.update(
            {
                "outcome": "fail",
                "stage": "call",
                "category": category,
                "rule": rule,
                "error": error_fields(exc),
            }
        )
        verdict, why = "fail", f"{type(exc).__name__}: {_first_line({'reason': str(exc)})}"
    elif look["status"] == "host_work":
        evidence = look["evidence"]
        out = dict(fields)
        out.update(
            {
                "outcome": "fail",
                "stage": "call",
                "category": "fallback",
                "rule": "predict:host-work",
                "evidence": evidence,
                "error": {
                    "type": "portbench.PredictedFallback",
                    "message": clip(_host_work_text(evidence), MESSAGE_CHARS),
                    "traceback": "",
                },
            }
        )
        verdict, why = "fail", "host work"
    elif look["status"] == "limit":
        out = _not_predictable(fields, look["why"])
        verdict, why = "not_predictable", look["why"]
    else:
        out = dict(fields)
        verdict, why = "pass", look.get("note") or "no host work"
    out["evidence_kind"] = evidence_kind_of(settings["method"])
    out["prediction"] = _prediction(settings, verdict, control, why)
    return out


def _host_work_text(evidence: Mapping[str, Any]) -> str:
    items = evidence.get("host_work") or []
    listed = "; ".join(
        f"{item.get('kind')} {item.get('what')}" for item in items[:4] if isinstance(item, dict)
    )
    return f"work would run on the host ({evidence.get('platform')}): {listed}"


_PREDICTION_KEYS = ("method", "target", "platform", "verdict", "control", "why")


def clean_prediction(value: Any) -> Optional[Dict[str, Any]]:
    """A worker's ``prediction`` object cut back to its known keys and bounds, or None.

    The supervisor calls this: a case's own code could have replaced it."""
    if not isinstance(value, dict) or value.get("method") not in METHODS:
        return None
    cleaned: Dict[str, Any] = {}
    for key in _PREDICTION_KEYS:
        item = value.get(key)
        if key == "verdict":
            cleaned[key] = item if item in VERDICTS else None
        else:
            # Cut plainly (no marker): the schema bounds these strings' length.
            cleaned[key] = str(item)[: 40 if key != "why" else WHY_CHARS]
    return cleaned
