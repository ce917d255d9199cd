"""A case's result (what a worker reports) and a case record (one line of results.jsonl).

Record schema history (``"schema"`` in each line; every one stays readable):
  1 - first version.
  2 - written by the host from the supervisor's stream; adds ``evidence`` (where the work
      ran, bounded), ``output`` (bytes the case printed, and how many were not logged),
      ``strays_killed`` (processes the case left behind), ``timing.warm_s``, the warm
      statistics' interval width and bounded samples (``ci95_rel``, ``stopped_by``,
      ``samples_ms``), the ``harness`` category (imported study data only), and non-finite
      numbers written as strings ("NaN", "Infinity", "-Infinity") so every line is standard
      JSON. Later, still 2: the optional ``cpu_reference`` (off the CPU, the same case on the
      framework's CPU in the same worker) and ``timing.warm_cap_s``.
  3 - census records: ``source`` (database, version, entry the inputs came from) and
      ``census`` (samples run, agreed, unchecked; the dtype declared or not).
  4 - written through the one contract (this package). All new fields optional, absent
      meaning what records before them meant:
      ``evidence_kind`` (observed, predicted, declared; absent: observed) and ``prediction``
      (how a predicted or declared record knows: method, target, platform, the verdict, the
      CPU control's outcome, a note);
      ``provenance`` (the release a cell named, Python, NumPy, the lock);
      ``recorded_by`` (``host`` for the record the host makes of the case a dead supervisor
      was running: a later record of that case from a supervisor supersedes it);
      ``timing.mode``; and ``kind: "mutant"`` with ``mutant`` (a mutation run's record, never
      read as a case's result).
A newer schema is refused with one sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Tuple

from .bounds import ERROR_TYPE_CHARS, MAX_CASE_ID_CHARS, STDERR_TAIL_CHARS
from .enums import Category, EvidenceKind, Outcome, RecordedBy, RecordKind, Stage, StrEnum
from .fields import Fields, JSONObject, RecordInvalid, json_number
from .parts import (
    READ_REASON_CHARS,
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
from .provenance import MutantInfo, Prediction, Provenance

__all__ = ["RECORD_SCHEMA", "RECORD_SCHEMAS", "CaseRecord", "CaseResult"]

RECORD_SCHEMA = 4
RECORD_SCHEMAS = (1, 2, 3, 4)
_RUN_KINDS = (RecordKind.CASE.value, RecordKind.MUTANT.value)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
# The profile may be a release's tag (jax-0.6.2): dots, never leading (no "." or "..").
_CELL = re.compile(r"^[a-z0-9_-]+/[a-z0-9_-]+/[a-z0-9_-][a-z0-9_.-]*$")
_CASE = re.compile(r"^.+::[A-Za-z0-9][A-Za-z0-9_.\-]*$", re.DOTALL)
# The host's record of a dead supervisor's case before schema 4 said so only in words.
_DEAD_SUPERVISOR = "the cell's supervisor died"


def _enum_json(value: Optional[StrEnum]) -> Optional[str]:
    return None if value is None else value.value


def _check_outcome(
    f: Fields, outcome: Outcome, stage: Optional[Stage], category: Optional[Category]
) -> None:
    if outcome is Outcome.FAIL and (stage is None or category is None):
        raise f.fail("a failure needs a stage and a category")
    if outcome is not Outcome.FAIL and category is not None:
        raise f.fail("only a failure has a category")


@dataclass(frozen=True)
class CaseResult:
    """What one case came to, as the worker reports it (or as the one factory makes it for a
    case that could not report: crash, timeout, protocol violation, dead supervisor)."""

    outcome: Outcome
    stage: Optional[Stage] = None
    category: Optional[Category] = None
    rule: Optional[str] = None
    reason: Optional[str] = None
    error: Optional[ErrorInfo] = None
    timing: Optional[Timing] = None
    evidence: Optional[Evidence] = None
    cpu_reference: Optional[CpuReference] = None
    census: Optional[CensusResult] = None
    exit: Optional[ExitInfo] = None
    stderr_tail: Optional[str] = None
    prediction: Optional[Prediction] = None
    """A predicted cell's verdict, control and note (the plan gives its method and target;
    a record's evidence kind is the plan's, never the worker's)."""
    mutant: Optional[MutantInfo] = None
    started_at: Optional[float] = None
    """When the case began (epoch seconds), as the worker saw it."""
    duration_s: Optional[float] = None
    siblings: Tuple[CaseResult, ...] = ()
    """A predicted pass's results for its other targets (each names its target in its
    ``prediction``): the same control, looked at for another platform."""

    def measured(
        self,
        timing: Optional[Timing],
        evidence: Optional[Evidence],
        started_at: Optional[float],
        duration_s: Optional[float],
    ) -> CaseResult:
        """This result with what the worker measured around it: one copy per case, made
        field by field (``dataclasses.replace`` inspects the class on every call)."""
        return CaseResult(
            self.outcome,
            self.stage,
            self.category,
            self.rule,
            self.reason,
            self.error,
            timing,
            evidence,
            self.cpu_reference,
            self.census,
            self.exit,
            self.stderr_tail,
            self.prediction,
            self.mutant,
            started_at,
            duration_s,
            self.siblings,
        )

    def to_json(self) -> JSONObject:
        """The ``outcome`` object of a ``result`` message."""
        out: JSONObject = {"outcome": self.outcome.value}
        for key, value in (
            ("stage", _enum_json(self.stage)),
            ("category", _enum_json(self.category)),
            ("rule", self.rule),
            ("reason", self.reason),
            ("stderr_tail", self.stderr_tail),
        ):
            if value is not None:
                out[key] = value
        for key, part in (
            ("error", self.error),
            ("timing", self.timing),
            ("evidence", self.evidence),
            ("cpu_reference", self.cpu_reference),
            ("census", self.census),
            ("exit", self.exit),
            ("prediction", self.prediction),
            ("mutant", self.mutant),
        ):
            if part is not None:
                out[key] = part.to_json()
        if self.started_at is not None:
            out["started_at"] = json_number(self.started_at)
        if self.duration_s is not None:
            out["duration_s"] = json_number(self.duration_s)
        if self.siblings:
            out["siblings"] = [sibling.to_json() for sibling in self.siblings]
        return out


_RECORD_KEYS = frozenset(
    {
        "schema",
        "kind",
        "cell",
        "framework",
        "accelerator",
        "profile",
        "function",
        "study_test_file",
        "case",
        "case_name",
        "case_file",
        "case_file_sha256",
        "seed",
        "outcome",
        "stage",
        "category",
        "rule",
        "reason",
        "error",
        "exit",
        "stderr_tail",
        "timing",
        "worker",
        "started_at",
        "duration_s",
        "rerun",
        "evidence",
        "output",
        "strays_killed",
        "source",
        "census",
        "cpu_reference",
        "evidence_kind",
        "prediction",
        "provenance",
        "recorded_by",
        "mutant",
    }
)
# Keys every record carries, null or not (the published schema's "required").
_REQUIRED = (
    "study_test_file",
    "case_file_sha256",
    "stage",
    "category",
    "reason",
    "error",
    "exit",
    "stderr_tail",
    "timing",
)


@dataclass(frozen=True)
class CaseRecord:
    """One line of ``results.jsonl``: a case's outcome in one cell."""

    schema: int
    cell: str
    framework: str
    accelerator: str
    profile: str
    function: str
    study_test_file: Optional[str]
    case: str
    case_name: str
    case_file: str
    case_file_sha256: Optional[str]
    seed: int
    outcome: Outcome
    stage: Optional[Stage]
    category: Optional[Category]
    rule: Optional[str]
    reason: Optional[str]
    error: Optional[ErrorInfo]
    exit: Optional[ExitInfo]
    stderr_tail: Optional[str]
    timing: Optional[Timing]
    worker: WorkerInfo
    started_at: str
    duration_s: float
    rerun: str
    kind: RecordKind = RecordKind.CASE
    evidence: Optional[Evidence] = None
    output: Optional[OutputInfo] = None
    strays_killed: int = 0
    cpu_reference: Optional[CpuReference] = None
    """Off the CPU: the same case on the framework's CPU in the same worker (optional)."""
    source: Optional[CensusSource] = None
    """Census records: the database, its version and the entry the inputs came from."""
    census: Optional[CensusResult] = None
    """Census records: samples run, agreed and unchecked; the dtype declared or not."""
    evidence_kind: EvidenceKind = EvidenceKind.OBSERVED
    prediction: Optional[Prediction] = None
    provenance: Optional[Provenance] = None
    recorded_by: RecordedBy = RecordedBy.SUPERVISOR
    mutant: Optional[MutantInfo] = None

    # -- reading -------------------------------------------------------------------------
    @classmethod
    def from_json(cls, obj: object, kind: Optional[RecordKind] = RecordKind.CASE) -> CaseRecord:
        """The record ``obj`` holds, checked as the published schema checks it; raises
        :class:`RecordInvalid` naming the field. ``kind`` is the kind the reader reads
        (None: a case or a mutant record, as the line says)."""
        if not isinstance(obj, dict):
            raise RecordInvalid(f"a record is a JSON object, not {type(obj).__name__}")
        if kind is None and obj.get("kind") in _RUN_KINDS:
            kind = RecordKind(obj["kind"])
        if kind is None or obj.get("kind") != kind.value:
            wanted = kind.value if kind is not None else "case"
            raise RecordInvalid(f"not a {wanted} record ('kind' is {str(obj.get('kind'))[:20]!r})")
        schema = obj.get("schema")
        if schema not in RECORD_SCHEMAS or isinstance(schema, bool):
            raise RecordInvalid(f"record schema {str(schema)[:20]} is not one of {RECORD_SCHEMAS}")
        case = obj.get("case")
        where = f"record {str(case)[:80]!r}"
        f = Fields(obj, where, RecordInvalid, _RECORD_KEYS)
        for key in _REQUIRED:
            if key not in obj:
                raise f.fail(f"'{key}' is missing")
        return cls._read(f, int(schema), kind)

    @classmethod
    def _read(cls, f: Fields, schema: int, kind: RecordKind) -> CaseRecord:
        outcome = f.enum("outcome", Outcome)
        stage, category = f.opt_enum("stage", Stage), f.opt_enum("category", Category)
        _check_outcome(f, outcome, stage, category)
        reason = f.opt_text("reason", READ_REASON_CHARS)
        if outcome is Outcome.SKIP and reason is None:
            raise f.fail("a skip needs a reason")
        cell, case = f.text("cell"), f.text("case", MAX_CASE_ID_CHARS)
        profile = f.text("profile")
        if not _CELL.match(cell):
            raise f.fail(f"'cell' {cell[:80]!r} is not framework/accelerator/profile")
        if not _CASE.match(case):
            raise f.fail("a case id is '<function>::<name>'")
        if category is Category.HARNESS and profile != "study":
            raise f.fail("only imported study data has the harness category")
        sha = f.opt_text("case_file_sha256")
        if sha is not None and not _SHA256.match(sha):
            raise f.fail("'case_file_sha256' is not a sha256")
        mutant = f.opt("mutant", MutantInfo.from_json)
        if (kind is RecordKind.MUTANT) != (mutant is not None):
            raise f.fail("a mutant record, and only one, names its mutant")
        prediction = f.opt("prediction", Prediction.from_json)
        evidence_kind = f.opt_enum("evidence_kind", EvidenceKind) or EvidenceKind.OBSERVED
        if (evidence_kind is EvidenceKind.OBSERVED) != (prediction is None):
            raise f.fail("a predicted or declared record, and only one, says how (prediction)")
        return cls(
            schema=schema,
            kind=kind,
            cell=cell,
            framework=f.text("framework"),
            accelerator=f.text("accelerator"),
            profile=profile,
            function=f.text("function"),
            study_test_file=f.opt_text("study_test_file"),
            case=case,
            case_name=f.text("case_name"),
            case_file=f.text("case_file"),
            case_file_sha256=sha,
            seed=f.integer("seed"),
            outcome=outcome,
            stage=stage,
            category=category,
            rule=f.opt_text("rule"),
            reason=reason,
            error=f.opt("error", ErrorInfo.from_json),
            exit=f.opt("exit", ExitInfo.from_json),
            stderr_tail=f.opt_text("stderr_tail", STDERR_TAIL_CHARS),
            timing=f.opt("timing", Timing.from_json),
            worker=WorkerInfo.from_json(f.raw("worker"), f"{f.where}.worker"),
            started_at=f.text("started_at", 64),
            duration_s=f.number("duration_s", nonneg=True),
            rerun=f.text("rerun"),
            evidence=f.opt("evidence", Evidence.from_json),
            output=f.opt("output", OutputInfo.from_json),
            strays_killed=f.opt_integer("strays_killed", 0) or 0,
            cpu_reference=f.opt("cpu_reference", CpuReference.from_json),
            source=f.opt("source", CensusSource.from_json),
            census=f.opt("census", CensusResult.from_json),
            evidence_kind=evidence_kind,
            prediction=prediction,
            provenance=f.opt("provenance", Provenance.from_json),
            recorded_by=f.opt_enum("recorded_by", RecordedBy) or RecordedBy.SUPERVISOR,
            mutant=mutant,
        )

    # -- writing -------------------------------------------------------------------------
    def to_json(self) -> JSONObject:
        """The record as one JSON object (strict: non-finite numbers by name)."""
        out: JSONObject = {
            "schema": self.schema,
            "kind": self.kind.value,
            "cell": self.cell,
            "framework": self.framework,
            "accelerator": self.accelerator,
            "profile": self.profile,
            "function": self.function,
            "study_test_file": self.study_test_file,
            "case": self.case,
            "case_name": self.case_name,
            "case_file": self.case_file,
            "case_file_sha256": self.case_file_sha256,
            "seed": self.seed,
            "outcome": self.outcome.value,
            "stage": _enum_json(self.stage),
            "category": _enum_json(self.category),
            "rule": self.rule,
            "reason": self.reason,
            "error": None if self.error is None else self.error.to_json(),
            "exit": None if self.exit is None else self.exit.to_json(),
            "stderr_tail": self.stderr_tail,
            "timing": None if self.timing is None else self.timing.to_json(),
            "worker": self.worker.to_json(),
            "started_at": self.started_at,
            "duration_s": json_number(self.duration_s),
            "rerun": self.rerun,
        }
        if self.schema >= 2:
            out["evidence"] = None if self.evidence is None else self.evidence.to_json()
            out["output"] = None if self.output is None else self.output.to_json()
            out["strays_killed"] = self.strays_killed
        for key, part in (
            ("cpu_reference", self.cpu_reference),
            ("prediction", self.prediction),
            ("provenance", self.provenance),
            ("mutant", self.mutant),
        ):
            if part is not None:
                out[key] = part.to_json()
        if self.schema >= 3 and (self.source is not None or self.census is not None):
            out["source"] = None if self.source is None else self.source.to_json()
            out["census"] = None if self.census is None else self.census.to_json()
        if self.evidence_kind is not EvidenceKind.OBSERVED:
            out["evidence_kind"] = self.evidence_kind.value
        if self.recorded_by is not RecordedBy.SUPERVISOR:
            out["recorded_by"] = self.recorded_by.value
        return out

    # -- what readers ask ----------------------------------------------------------------
    @property
    def fallback_marked(self) -> bool:
        """A probe saw this case's work run partly on the host (``evidence.fallback``)."""
        return self.evidence is not None and self.evidence.fallback is True

    @property
    def fails_on_cpu(self) -> bool:
        """The case failed here and its CPU twin failed too: not this device's failure."""
        return (
            self.outcome is Outcome.FAIL
            and self.cpu_reference is not None
            and self.cpu_reference.outcome is Outcome.FAIL
        )

    @property
    def for_dead_supervisor(self) -> bool:
        """The host made this record of the case a supervisor was running when it died: a
        later record of the case (a resumed cell's) supersedes it. Before schema 4 such a
        record said so only in its reason, and had no worker."""
        if self.recorded_by is RecordedBy.HOST:
            return True
        return (
            self.schema < RECORD_SCHEMA
            and self.category is Category.CRASH
            and self.worker.pid is None
            and (self.reason or "").startswith(_DEAD_SUPERVISOR)
        )

    @property
    def is_mutation(self) -> bool:
        """A mutation run's record: never a result of the case it mutates."""
        return self.kind is RecordKind.MUTANT

    @property
    def message(self) -> str:
        """The error's message, or the reason, or ''."""
        if self.error is not None and self.error.message:
            return self.error.message
        return self.reason or ""

    @property
    def warm_median_ms(self) -> Optional[float]:
        if self.timing is None or self.timing.warm is None:
            return None
        return self.timing.warm.median_ms

    @property
    def error_type(self) -> str:
        return "" if self.error is None else self.error.type[:ERROR_TYPE_CHARS]
