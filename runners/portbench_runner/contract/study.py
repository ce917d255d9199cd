"""The study's published results as cells: a study plan (a kind of its own) and study
records (``kind: study``), which the report reads beside portbench's cells.

Study plans: schema 1, ``kind: study-plan``; imports before the kind existed wrote
``kind: plan`` with backend ``study``, read the same. A study plan lists the study's sampled
functions; it compiles no case, so nothing runs it and ``compare`` does not take it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from .enums import Category, Outcome, RecordKind, Stage
from .fields import Fields, JSONObject, PlanInvalid, RecordInvalid, json_number
from .records import RECORD_SCHEMAS

__all__ = [
    "STUDY_BACKEND",
    "STUDY_PLAN_KIND",
    "STUDY_PLAN_SCHEMA",
    "HarnessMark",
    "StudyError",
    "StudyFunction",
    "StudyPlan",
    "StudyRecord",
    "StudyTiming",
    "is_study_plan",
]

STUDY_BACKEND = "study"
STUDY_PLAN_KIND = "study-plan"
STUDY_PLAN_SCHEMA = 1


def is_study_plan(obj: object) -> bool:
    """Whether a decoded plan.json is a study plan (of either spelling)."""
    if not isinstance(obj, dict):
        return False
    return obj.get("kind") == STUDY_PLAN_KIND or (
        obj.get("kind") == "plan" and obj.get("backend") == STUDY_BACKEND
    )


@dataclass(frozen=True)
class StudyFunction:
    function: str
    study_test_file: Optional[str]
    stratum: Optional[str] = None
    frequency: Optional[int] = None
    paper_label: Optional[str] = None
    in_paper_latency_table: bool = False

    @classmethod
    def from_json(cls, value: object, where: str) -> StudyFunction:
        f = Fields(value, where, PlanInvalid)
        frequency = f.raw("frequency")
        return cls(
            f.text("function"),
            f.opt_text("study_test_file"),
            f.opt_text("stratum"),
            frequency if isinstance(frequency, int) and not isinstance(frequency, bool) else None,
            f.opt_text("paper_label"),
            bool(f.opt_flag("in_paper_latency_table")),
        )

    def to_json(self) -> JSONObject:
        return {
            "function": self.function,
            "study_test_file": self.study_test_file,
            "stratum": self.stratum,
            "frequency": self.frequency,
            "paper_label": self.paper_label,
            "in_paper_latency_table": self.in_paper_latency_table,
        }


@dataclass(frozen=True)
class StudyPlan:
    """A study cell's plan: which of the study's functions the cell holds."""

    cell: str
    framework: str
    accelerator: str
    profile: str
    functions: Tuple[StudyFunction, ...]
    schema: int = STUDY_PLAN_SCHEMA
    backend: str = STUDY_BACKEND
    label: Optional[str] = None

    @classmethod
    def from_json(cls, obj: object, where: str) -> StudyPlan:
        if not is_study_plan(obj):
            raise PlanInvalid(f"{where}: not a study plan")
        f = Fields(obj, where, PlanInvalid)
        schema = f.integer("schema")
        if schema > STUDY_PLAN_SCHEMA:
            raise PlanInvalid(
                f"{where}: study plan schema {schema} is newer than this portbench's "
                f"{STUDY_PLAN_SCHEMA}; upgrade portbench to read it"
            )
        accelerator = f.raw("accelerator")
        return cls(
            f.text("cell"),
            f.text("framework"),
            accelerator if isinstance(accelerator, str) else "?",
            f.text("profile"),
            tuple(
                StudyFunction.from_json(item, f"{where}: a function")
                for item in f.items("functions")
            ),
            schema,
            label=f.opt_text("label", 200),
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "schema": self.schema,
            "kind": STUDY_PLAN_KIND,
            "cell": self.cell,
            "framework": self.framework,
            "accelerator": self.accelerator,
            "profile": self.profile,
            "backend": self.backend,
            "functions": [f.to_json() for f in self.functions],
        }
        if self.label is not None:
            out["label"] = self.label
        return out


@dataclass(frozen=True)
class StudyError:
    type: Optional[str]
    message: str
    traceback: str = ""
    """pytest's exception lines (the ``E`` lines, the chain included) the category was read
    from; absent from imports before importer 4."""

    @classmethod
    def from_json(cls, value: object, where: str) -> StudyError:
        f = Fields(value, where, RecordInvalid)
        return cls(f.opt_text("type"), f.opt_text("message") or "", f.opt_text("traceback") or "")

    def to_json(self) -> JSONObject:
        out: JSONObject = {"type": self.type, "message": self.message}
        if self.traceback:
            out["traceback"] = self.traceback
        return out


@dataclass(frozen=True)
class HarnessMark:
    """The rule (``paper/harness.toml``) that says a study failure is its harness's own."""

    rule: str
    why: str

    @classmethod
    def from_json(cls, value: object, where: str) -> HarnessMark:
        f = Fields(value, where, RecordInvalid)
        return cls(f.text("rule"), f.opt_text("why") or "")

    def to_json(self) -> JSONObject:
        return {"rule": self.rule, "why": self.why}


@dataclass(frozen=True)
class StudyTiming:
    """The study's timed calls of a sub-test (one timed call per operation, compilation
    included): the study's means, never warm medians."""

    mean_ms: float
    median_ms: float
    q1_ms: float
    q3_ms: float
    min_ms: float
    operations: int
    runs: int
    timed_in_every_run: bool
    per_run_mean_ms: Tuple[float, ...] = ()
    test_time_s: Tuple[float, ...] = ()

    @classmethod
    def from_json(cls, value: object, where: str) -> Optional[StudyTiming]:
        f = Fields(value, where, RecordInvalid)
        if not f.has("study"):
            return None
        s = f.nested("study")
        return cls(
            s.number("mean_ms"),
            s.number("median_ms"),
            s.number("q1_ms"),
            s.number("q3_ms"),
            s.number("min_ms"),
            s.integer("operations", 0),
            s.integer("runs", 0),
            s.flag("timed_in_every_run"),
            s.numbers("per_run_mean_ms", 100) if "per_run_mean_ms" in s.obj else (),
            s.numbers("test_time_s", 100) if "test_time_s" in s.obj else (),
        )

    def to_json(self) -> JSONObject:
        return {
            "cold_ms": None,
            "warm": None,
            "study": {
                "mean_ms": json_number(self.mean_ms),
                "median_ms": json_number(self.median_ms),
                "q1_ms": json_number(self.q1_ms),
                "q3_ms": json_number(self.q3_ms),
                "min_ms": json_number(self.min_ms),
                "operations": self.operations,
                "runs": self.runs,
                "timed_in_every_run": self.timed_in_every_run,
                "per_run_mean_ms": [json_number(v) for v in self.per_run_mean_ms],
                "test_time_s": [json_number(v) for v in self.test_time_s],
            },
        }


@dataclass(frozen=True)
class StudyRecord:
    """One sub-test of the study's published results, in the record shape the report reads."""

    cell: str
    framework: str
    accelerator: str
    profile: str
    function: str
    study_test_file: Optional[str]
    case: str
    case_name: str
    case_file: str
    study_key: Optional[str]
    outcome: Outcome
    study_outcome: Optional[str]
    stage: Optional[Stage] = None
    category: Optional[Category] = None
    rule: Optional[str] = None
    reason: Optional[str] = None
    error: Optional[StudyError] = None
    harness: Optional[HarnessMark] = None
    timing: Optional[StudyTiming] = None
    schema: int = 1

    kind = RecordKind.STUDY
    # A study record carries none of these: it reads as a case record would without them.
    fallback_marked = False
    fails_on_cpu = False
    for_dead_supervisor = False
    evidence = None
    cpu_reference = None

    @classmethod
    def from_json(cls, obj: object) -> StudyRecord:
        if not isinstance(obj, dict) or obj.get("kind") != RecordKind.STUDY.value:
            raise RecordInvalid("not a study record")
        schema = obj.get("schema")
        if schema not in RECORD_SCHEMAS or isinstance(schema, bool):
            raise RecordInvalid(f"record schema {str(schema)[:20]} is not one of {RECORD_SCHEMAS}")
        f = Fields(obj, f"study record {str(obj.get('case'))[:80]!r}", RecordInvalid)
        outcome = f.enum("outcome", Outcome)
        return cls(
            cell=f.text("cell"),
            framework=f.opt_text("framework") or "?",
            accelerator=f.opt_text("accelerator") or "?",
            profile=f.opt_text("profile") or "?",
            function=f.text("function"),
            study_test_file=f.opt_text("study_test_file"),
            case=f.text("case"),
            case_name=f.opt_text("case_name") or "",
            case_file=f.opt_text("case_file") or "",
            study_key=f.opt_text("study_key"),
            outcome=outcome,
            study_outcome=f.opt_text("study_outcome"),
            stage=f.opt_enum("stage", Stage),
            category=f.opt_enum("category", Category),
            rule=f.opt_text("rule"),
            reason=f.opt_text("reason"),
            error=f.opt("error", StudyError.from_json),
            harness=f.opt("harness", HarnessMark.from_json),
            timing=f.opt("timing", StudyTiming.from_json),
            schema=int(schema),
        )

    def to_json(self) -> JSONObject:
        return {
            "schema": self.schema,
            "kind": RecordKind.STUDY.value,
            "cell": self.cell,
            "framework": self.framework,
            "accelerator": self.accelerator,
            "profile": self.profile,
            "function": self.function,
            "study_test_file": self.study_test_file,
            "case": self.case,
            "case_name": self.case_name,
            "case_file": self.case_file,
            "study_key": self.study_key,
            "outcome": self.outcome.value,
            "study_outcome": self.study_outcome,
            "stage": None if self.stage is None else self.stage.value,
            "category": None if self.category is None else self.category.value,
            "rule": self.rule,
            "reason": self.reason,
            "error": None if self.error is None else self.error.to_json(),
            "harness": None if self.harness is None else self.harness.to_json(),
            "timing": None if self.timing is None else self.timing.to_json(),
        }

    @property
    def key(self) -> str:
        """What makes the record unique in its cell (two files may hold a test of one name)."""
        return self.study_key or self.case

    @property
    def message(self) -> str:
        if self.error is not None and self.error.message:
            return self.error.message
        return self.reason or ""

    @property
    def warm_median_ms(self) -> Optional[float]:
        return None
