"""A mutation run's cases in the worker: each case first unmutated, then once per mutant.

The host plans a case's baseline (kind ``none``, the case's own id) before its mutants
(``<case id>.mutant-<kind>``); the worker keeps each baseline's facts, and runs a baseline
again where a fresh worker lacks them. A mutant runs only on a passing baseline; output
mutants are counted apart for a measured call that is stateful (``warm=False``) or whose
result is not used, where the ``state`` mutant applies instead. Every result names its
mutant (``MutantInfo``): pass means it survived, fail or error that the case killed it,
skip that it does not apply (the reason says why, with a prefix the host counts by).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Dict, Optional

from ..context import Context
from ..contract import REASON_CHARS, CaseResult, MutantInfo, Outcome, PlanCase, clip
from .apply import Mutator, framework_ops
from .kinds import BASELINE, DEFAULT_FLOAT_SCALE, OUTPUT_KINDS
from .usage import result_unused

if TYPE_CHECKING:
    from ..api import CaseSpec
    from ..worker import Worker

__all__ = ["APART", "BASELINE_FAILED", "NOT_APPLICABLE", "MutationRunner"]

#: Reason prefixes of skipped mutant records (the host counts them by these).
BASELINE_FAILED = "the unmutated case did not pass"
APART = "counted apart"
NOT_APPLICABLE = "not applicable"


@dataclass(frozen=True)
class Baseline:
    outcome: Outcome
    apart: Optional[str]
    """Why output mutants say nothing of this case (stateful call, result unused), or None."""


class MutationRunner:
    """The worker's mutation state: its framework's ops and the baselines it has run."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.ops = framework_ops(worker.plan.framework)
        settings = worker.plan.mutation.settings if worker.plan.mutation else {}
        scale = settings.get("float_scale", DEFAULT_FLOAT_SCALE)
        self.scale = float(scale) if isinstance(scale, (int, float)) else DEFAULT_FLOAT_SCALE
        self.baselines: Dict[str, Baseline] = {}

    def _context(self, case: PlanCase, kind: str, on_stage: Any) -> Context:
        worker = self.worker
        ctx = Context(
            worker.adapter,
            case.id,
            case.seed,
            worker.plan.profile,
            worker.plan.accelerator.id,
            None,
            on_stage=on_stage,
            cold_only=True,  # outcomes only: a mutant's timing means nothing
        )
        ctx.mutator = Mutator(kind, self.ops, self.scale)
        return ctx

    def _baseline(self, spec: CaseSpec, case: PlanCase, on_stage: Any) -> CaseResult:
        ctx = self._context(case, BASELINE, on_stage)
        result = self.worker._execute(self.worker.adapter, spec, ctx)
        apart = None
        if ctx.measured_warm is False:
            apart = "the measured call is stateful (warm=False)"
        elif ctx.measure_site is not None:
            apart = result_unused(*ctx.measure_site)
        self.baselines[f"{spec_case_id(case)}"] = Baseline(result.outcome, apart)
        result = self.worker._with_measurement(result, ctx)
        return replace(result, mutant=MutantInfo(BASELINE, BASELINE, apart))

    def run(self, spec: CaseSpec, case: PlanCase, on_stage: Any) -> CaseResult:
        kind = case.mutant or BASELINE
        if kind == BASELINE:
            return self._baseline(spec, case, on_stage)
        base = self.baselines.get(spec_case_id(case))
        if base is None:  # a fresh worker: the baseline's record was sent by another
            self._baseline(spec, case, None)
            base = self.baselines[spec_case_id(case)]
        info = MutantInfo(kind, kind)
        if base.outcome is not Outcome.PASS:
            return _skip(
                f"{BASELINE_FAILED} ({base.outcome.value}); its mutants do not apply", info
            )
        if kind in OUTPUT_KINDS and base.apart:
            return _skip(f"{APART}: {base.apart}", info)
        if kind == "state" and not base.apart:
            return _skip(
                f"{NOT_APPLICABLE}: the measured call is not stateful and its result is used", info
            )
        ctx = self._context(case, kind, on_stage)
        mutator = ctx.mutator
        result = self.worker._execute(self.worker.adapter, spec, ctx)
        if ctx.timing is not None and not mutator.changed and result.outcome is Outcome.PASS:
            return _skip(f"{NOT_APPLICABLE}: {mutator.why_not}", info)
        note = _tolerance_note(ctx)
        result = self.worker._with_measurement(result, ctx)
        return replace(result, mutant=MutantInfo(kind, kind, note))


def spec_case_id(case: PlanCase) -> str:
    """The id of the case a planned run mutates (its baseline's id)."""
    from .kinds import split_mutant_id

    return split_mutant_id(case.id)[0]


def _skip(reason: str, info: MutantInfo) -> CaseResult:
    return CaseResult(Outcome.SKIP, reason=clip(reason, REASON_CHARS), mutant=info)


def _tolerance_note(ctx: Context) -> Optional[str]:
    """The loosest ``check_close`` tolerance the case used, where it used one: a survivor
    of ``float`` whose tolerance is wider than the move is explained by it."""
    if ctx.tolerance is None:
        return None
    rtol, atol = ctx.tolerance
    return f"check_close rtol={rtol:g} atol={atol:g}"
