"""The differential check: an accelerator's result beside the same case on the CPU.

On an accelerator, each case that passed or failed is run a second time, in the same
worker, by the same framework on its CPU (same seed, so the same inputs; one cold call,
no warm timing). Two things come of it:

- a case that fails on the CPU too is not a portability failure of the accelerator; the
  record says so (``cpu_reference.outcome == "fail"``) and the report puts it apart;
- a case that passed on both is also held to the CPU's output, leaf by leaf, within the
  case's own tolerance (the loosest it gave ``check_close``) doubled, because each side may
  sit at an opposite edge of the reference's band; without one, the output dtype's
  default. A function without a NumPy twin is then still checked for what it computes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, List, Optional, Tuple

from .checks import tolerance_for
from .contract import MESSAGE_CHARS, CaseResult, CpuReference, Outcome, clip

__all__ = ["compare_leaves", "cpu_reference"]


def _dtype_name(leaf: Any) -> str:
    return str(getattr(leaf, "dtype", "")).rsplit(".", 1)[-1]


def compare_leaves(
    device: List[Any],
    cpu: List[Any],
    tolerance: Optional[Tuple[float, float]],
    dtypes: Optional[List[str]] = None,
) -> Tuple[Optional[str], Optional[float]]:
    """(a description of the first mismatch or None, the largest absolute difference)."""
    import numpy as np

    if len(device) != len(cpu):
        return f"{len(device)} output values here, {len(cpu)} on the CPU", None
    worst = 0.0
    for index, (a, b) in enumerate(zip(device, cpu)):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return f"output {index}: shape {a.shape} here, {b.shape} on the CPU", None
        if a.dtype.kind not in "biufc" or b.dtype.kind not in "biufc":
            if not np.array_equal(a, b):
                return f"output {index}: differs from the CPU's", None
            continue
        if tolerance is not None:
            rtol, atol = 2 * tolerance[0], 2 * tolerance[1]
        else:
            name = (dtypes or [])[index] if dtypes and index < len(dtypes) else a.dtype.name
            rtol, atol = tolerance_for(name)
        a64 = a.astype("complex128" if a.dtype.kind == "c" else "float64")
        b64 = b.astype("complex128" if b.dtype.kind == "c" else "float64")
        diff = np.abs(a64 - b64)
        finite = np.isfinite(diff)
        if diff.size and finite.any():
            worst = max(worst, float(diff[finite].max()))
        if not np.allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True):
            bad = int((~np.isclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True)).sum())
            return (
                f"output {index}: {bad} of {a.size} elements differ from the CPU's beyond "
                f"rtol={rtol:g} atol={atol:g} (largest difference {worst:.3g})"
            ), worst
    return None, worst


def cpu_reference(
    result: CaseResult,
    twin: CaseResult,
    device_ctx: Any,
    cpu_ctx: Any,
) -> Tuple[CpuReference, Optional[str]]:
    """The record's ``cpu_reference`` and, when outputs disagree, the mismatch message.

    ``result`` is the accelerator's result, ``twin`` the CPU run's; the contexts carry the
    kept outputs and the case's tolerance.
    """
    ref = CpuReference(
        outcome=twin.outcome,
        stage=twin.stage,
        category=None if twin.category is None else twin.category.value,
        message=clip(twin.error.message if twin.error is not None else "", MESSAGE_CHARS),
        reason=twin.reason,
        compared=False,
        note="",
    )
    if result.outcome is not Outcome.PASS or twin.outcome is not Outcome.PASS:
        return replace(ref, note="outputs compared only when both sides pass"), None
    if not device_ctx.comparable:
        return replace(ref, note=f"not compared: {device_ctx.not_comparable_reason}"), None
    if device_ctx.output_leaves is None or cpu_ctx.output_leaves is None:
        note = device_ctx.output_note or cpu_ctx.output_note or "no array output to compare"
        return replace(ref, note=note), None
    mismatch, worst = compare_leaves(
        device_ctx.output_leaves,
        cpu_ctx.output_leaves,
        device_ctx.tolerance,
        getattr(device_ctx, "output_dtypes", None),
    )
    return replace(ref, compared=True, max_abs_diff=worst), mismatch
