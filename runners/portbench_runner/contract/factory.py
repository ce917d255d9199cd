"""The one factory of case records, and of every result that is not a case's own.

A case's own result comes from its worker (``result_from_worker`` reads it, never trusting
it). Every other result is made here: a worker that crashed or was killed at the deadline, a
case that wrote to the protocol pipe, a result that is malformed, a function the profile
cannot run, and the host's result for the case a dead supervisor was running. Every record
(the supervisor's and the host's) is assembled by :class:`RecordFactory` from the plan, so a
record's identity fields come from one place.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import replace
from datetime import datetime, timezone
from typing import Callable, Optional, Tuple, TypeVar

from .bounds import (
    ERROR_TYPE_CHARS,
    MESSAGE_CHARS,
    REASON_CHARS,
    RULE_CHARS,
    STDERR_TAIL_CHARS,
    TRACEBACK_CHARS,
    clip,
)
from .enums import CATEGORIES, Category, Outcome, RecordedBy, RecordKind, Stage
from .fields import ContractError, Fields, RecordInvalid, number_value
from .parts import (
    CensusResult,
    CensusSource,
    CpuReference,
    ErrorInfo,
    Evidence,
    ExitInfo,
    OutputInfo,
    Timing,
    WorkerInfo,
)
from .plan import Plan
from .provenance import MutantInfo, Prediction, Provenance
from .records import RECORD_SCHEMA, CaseRecord, CaseResult

__all__ = [
    "RecordFactory",
    "crash_result",
    "dead_supervisor_result",
    "iso_time",
    "malformed_result",
    "result_from_worker",
    "timeout_result",
    "untested_result",
    "violation_result",
]

T = TypeVar("T")


def iso_time(epoch: Optional[float] = None) -> str:
    moment = datetime.fromtimestamp(time.time() if epoch is None else epoch, tz=timezone.utc)
    return moment.isoformat(timespec="milliseconds")


# -- results that are not a case's own -------------------------------------------------------
def malformed_result(problem: str) -> CaseResult:
    """A worker's result that does not read: the case's own code broke the report."""
    return CaseResult(
        Outcome.ERROR, error=ErrorInfo("MalformedResult", clip(problem, MESSAGE_CHARS))
    )


def violation_result(what: str) -> CaseResult:
    """The case in flight wrote to its worker's protocol pipe (``what`` it wrote)."""
    return CaseResult(
        Outcome.ERROR,
        reason=clip(
            f"the case's code wrote to the worker's protocol pipe ({what}); its worker was "
            "replaced and no other case's record was touched",
            REASON_CHARS,
        ),
        error=ErrorInfo("ProtocolViolation", clip(what, MESSAGE_CHARS)),
    )


def crash_result(stage: Stage, exit: ExitInfo, stderr_tail: str, oom: bool) -> CaseResult:
    """The worker died during the case: a crash, or ``memory`` when the OOM killer did it."""
    how = f"signal {exit.signal}" if exit.signal else f"exit code {exit.code}"
    return CaseResult(
        Outcome.FAIL,
        stage=stage,
        category=Category.MEMORY if oom else Category.CRASH,
        reason=f"the worker died during the case ({how})"
        + ("; the cgroup's OOM killer fired" if oom else ""),
        exit=exit,
        stderr_tail=clip(stderr_tail, STDERR_TAIL_CHARS),
    )


def timeout_result(stage: Stage, limit_s: float, stderr_tail: str) -> CaseResult:
    return CaseResult(
        Outcome.FAIL,
        stage=stage,
        category=Category.TIMEOUT,
        reason=f"no result within {limit_s:g} s; the worker was killed",
        stderr_tail=clip(stderr_tail, STDERR_TAIL_CHARS),
    )


def untested_result(reason: str) -> CaseResult:
    """A case of a function the profile cannot run (the plan's ``untested_reason``)."""
    return CaseResult(Outcome.SKIP, reason=clip(reason, REASON_CHARS))


def dead_supervisor_result(status: int) -> CaseResult:
    """The host's result for the case a supervisor was running when it died. The host does
    not know how far the case got: the stage is given as ``call``."""
    return CaseResult(
        Outcome.FAIL,
        stage=Stage.CALL,
        category=Category.CRASH,
        reason=f"the cell's supervisor died (exit {status}) while this case ran; a resumed "
        "cell runs it again",
        exit=ExitInfo(status, None),
    )


# -- a worker's own result, read without trusting it ---------------------------------------------
def _part(f: Fields, key: str, read: Callable[[object, str], T]) -> Optional[T]:
    try:
        return f.opt(key, read)
    except ContractError as exc:
        raise RecordInvalid(f"its {key} is not valid ({str(exc)[:200]})") from None


def _error(value: object) -> Optional[ErrorInfo]:
    if not isinstance(value, dict):
        return None
    return ErrorInfo(
        clip(str(value.get("type", "")), ERROR_TYPE_CHARS),
        clip(str(value.get("message", "")), MESSAGE_CHARS),
        clip(str(value.get("traceback", "")), TRACEBACK_CHARS),
    )


def _evidence(value: object) -> Optional[Evidence]:
    # The worker cuts evidence back to its shape before sending; what still does not read was
    # forged on the pipe, and goes (the case keeps its outcome, as with planted evidence).
    try:
        return None if value is None else Evidence.from_json(value, "evidence")
    except ContractError:
        return None


#: Sibling results one worker result may carry (a predicted pass's other targets).
MAX_SIBLING_RESULTS = 8


def _siblings(f: Fields) -> Tuple[CaseResult, ...]:
    if f.raw("siblings") is None:
        return ()
    found = []
    for item in f.items("siblings", MAX_SIBLING_RESULTS):
        sibling = _checked(item, nested=False)
        if sibling.prediction is None:
            raise RecordInvalid("a sibling result names no target (prediction)")
        found.append(sibling)
    return tuple(found)


def _checked(obj: object, nested: bool = True) -> CaseResult:
    f = Fields(obj, "the result", RecordInvalid)
    if not nested and f.raw("siblings") is not None:
        raise RecordInvalid("a sibling result has siblings of its own")
    outcome = f.enum("outcome", Outcome)
    stage = category = None
    if outcome is Outcome.FAIL:
        stage = f.opt_enum("stage", Stage) if f.raw("stage") in [s.value for s in Stage] else None
        raw = f.raw("category")
        category = Category(raw) if raw in CATEGORIES else None
        if stage is None or category is None:
            raise RecordInvalid("a failure without a known stage and category")
    rule, reason = f.raw("rule"), f.raw("reason")
    if not isinstance(reason, str) and outcome is Outcome.SKIP:
        reason = "skipped"
    started, duration = number_value(f.raw("started_at")), number_value(f.raw("duration_s"))
    return CaseResult(
        outcome,
        stage=stage,
        category=category,
        rule=clip(rule, RULE_CHARS) if isinstance(rule, str) else None,
        reason=clip(reason, REASON_CHARS) if isinstance(reason, str) else None,
        error=_error(f.raw("error")),
        timing=_part(f, "timing", Timing.from_json),
        evidence=_evidence(f.raw("evidence")),
        cpu_reference=_part(f, "cpu_reference", CpuReference.from_json),
        census=_part(f, "census", CensusResult.from_json),
        prediction=_part(f, "prediction", Prediction.from_json),
        mutant=_part(f, "mutant", MutantInfo.from_json),
        started_at=started,
        duration_s=None if duration is None else max(0.0, duration),
        siblings=_siblings(f) if nested else (),
    )


def result_from_worker(obj: object) -> CaseResult:
    """A worker's result, checked and cut to the record's bounds; anything malformed (an
    unknown outcome, a failure without stage and category, a part that does not read)
    becomes an ``error`` that says what was wrong."""
    try:
        return _checked(obj)
    except ContractError as exc:
        return malformed_result(str(exc).replace("the result: ", "", 1))
    except ValueError as exc:  # an enum's own refusal
        return malformed_result(str(exc)[:200])


# -- records -----------------------------------------------------------------------------------
class RecordFactory:
    """Makes the records of one plan's cases (the supervisor's, and the host's own)."""

    def __init__(self, plan: Plan, provenance: Optional[Provenance] = None) -> None:
        self.plan = plan
        self.provenance = provenance if provenance is not None else plan.provenance
        self.kind = RecordKind.MUTANT if plan.is_mutation else RecordKind.CASE

    def record(
        self,
        case_id: str,
        result: CaseResult,
        worker: WorkerInfo,
        *,
        started_at: Optional[float] = None,
        duration_s: Optional[float] = None,
        output: Optional[OutputInfo] = None,
        strays_killed: int = 0,
        recorded_by: RecordedBy = RecordedBy.SUPERVISOR,
    ) -> CaseRecord:
        """The record of ``case_id`` (a case of the plan) with ``result``. Times default to
        what the result says, then to now."""
        plan = self.plan
        function, case = plan.entry(case_id)
        started = result.started_at if started_at is None else started_at
        started = time.time() if started is None else started
        duration = result.duration_s if duration_s is None else duration_s
        census = function.census
        # A record's kind, method and target are the plan's, never the worker's: a case's
        # code cannot make its own record predicted, or an observed cell's anything else.
        evidence_kind = plan.evidence_kind
        prediction = None if plan.prediction is None else plan.prediction.record(result.prediction)
        return CaseRecord(
            schema=RECORD_SCHEMA,
            kind=self.kind,
            cell=plan.cell,
            framework=plan.framework,
            accelerator=plan.accelerator.id,
            profile=plan.profile,
            function=function.function,
            study_test_file=function.study_test_file,
            case=case_id,
            case_name=case.name,
            case_file=function.case_file,
            case_file_sha256=function.case_file_sha256,
            seed=case.seed,
            outcome=result.outcome,
            stage=result.stage if result.outcome is Outcome.FAIL else None,
            category=result.category if result.outcome is Outcome.FAIL else None,
            rule=result.rule,
            reason=result.reason,
            error=result.error,
            exit=result.exit,
            stderr_tail=result.stderr_tail,
            timing=result.timing,
            worker=worker,
            started_at=iso_time(started),
            duration_s=max(0.0, time.time() - started if duration is None else duration),
            rerun=f"{plan.rerun_prefix} --case {shlex.quote(case_id)}",
            evidence=result.evidence,
            output=output,
            strays_killed=strays_killed,
            cpu_reference=result.cpu_reference,
            source=None
            if census is None
            else CensusSource(
                census.database, census.version, census.entry, census.op, census.variant
            ),
            census=result.census,
            evidence_kind=evidence_kind,
            prediction=prediction,
            provenance=self.provenance,
            recorded_by=recorded_by,
            mutant=result.mutant,
        )

    def in_this_cell(self, record: CaseRecord) -> CaseRecord:
        """``record``, of another cell of a predicted pass (``Plan.siblings``), as the record
        of the same case in this factory's cell: its cell, rerun command and prediction are
        this cell's, the rest (the outcome that speaks for every target) is ``record``'s."""
        made = self.record(record.case, CaseResult(record.outcome), record.worker)
        return replace(record, cell=made.cell, rerun=made.rerun, prediction=made.prediction)

    def with_result(self, record: CaseRecord, result: CaseResult) -> CaseRecord:
        """``record`` with its outcome fields replaced by ``result``'s (a record the worker
        sent, turned into what the supervisor found out afterwards)."""
        return replace(
            record,
            outcome=result.outcome,
            stage=result.stage,
            category=result.category,
            rule=result.rule,
            reason=result.reason,
            error=result.error,
            exit=result.exit,
            stderr_tail=result.stderr_tail,
            timing=result.timing,
        )
