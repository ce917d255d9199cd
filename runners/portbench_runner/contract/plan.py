"""The plan: what the host compiles for one cell and the runner runs (JSON on disk).

Plan schema history (every one stays readable):
  1 - first version.
  2 - ``file_cases`` per function (every case its file registers, as the host reads it, so
      the worker can refuse a file that registers cases at run time); ``cases_per_worker``
      (0: a worker runs cases until it dies; 1: every case in a fresh worker process);
      ``differential`` (each passing or failing case is run again on the framework's CPU in
      the same worker and compared; on by default off the CPU); ``cell_budget_s`` (the
      cell's wall-time cap: warm timing is thinned to meet it; null: no cap); ``fallback``
      (``mode`` mark or fail, ``soft_placement``, ``lower_for``; absent: mark, soft
      placement off, the cell's own platform); ``label`` (the user's name for the run, read
      by the report only; absent when none was given).
  3 - ``census`` (census cells only: the database, its version, the listing's hash, the
      dtypes tried, timing on or off, samples per case, folders the worker adds to its
      path); census functions carry a ``census`` entry in place of a case file, and their
      cases a ``dtype``.
  4 - written through the one contract (this package). Optional, absent meaning what it
      meant before: ``provenance`` (the framework release a cell names, ``jax==0.6.2``, and
      the lock that installs it: id and sha256); ``prediction`` (a cell that predicts a
      target instead of running on it: method, target, platform and how its CPU control
      runs); ``mutation`` (a mutation run's settings: its records are mutants, never
      results); ``timing.mode`` may be ``none`` (outcomes and cold calls only). Case and
      function names are bounded (``MAX_NAME_CHARS``).
A newer schema is refused with one sentence.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Tuple

from .bounds import DEFAULT_MAX_RESTARTS, MAX_CASE_ID_CHARS, MAX_DOCUMENT_BYTES, MAX_NAME_CHARS
from .enums import EvidenceKind, TimingMode
from .fields import ContractError, Fields, JSONObject, PlanInvalid
from .jsonline import DOCUMENT, LineRefused, read_json
from .plan_parts import (
    CensusEntry,
    CensusSettings,
    FallbackSettings,
    ImageRef,
    MutationSettings,
    Origin,
    PlanAccelerator,
    Rule,
    Timeouts,
    TimingSettings,
    read_timing,
)
from .provenance import PredictionSettings, Provenance

__all__ = [
    "PLAN_SCHEMA",
    "PLAN_SCHEMAS",
    "CellEnvironment",
    "Plan",
    "PlanCase",
    "PlanFunction",
    "load_plan",
]

PLAN_SCHEMA = 4
PLAN_SCHEMAS = (1, 2, 3, 4)


def _bounded_name(text: str, what: str, limit: int = MAX_NAME_CHARS) -> None:
    if len(text) > limit:
        raise PlanInvalid(
            f"a {what} of {len(text)} characters ({text[:40]!r}...) is over the {limit} a "
            f"{what} may have; give it a shorter name"
        )


@dataclass(frozen=True)
class PlanCase:
    """One case of a planned function: its id, its name, its seed and deadline."""

    id: str
    name: str
    seed: int
    timeout_s: Optional[float] = None
    code_sha256: Optional[str] = None
    """The case's own code (body and parameters), so two plans pair a case that did not
    change though its file did."""
    dtype: Optional[str] = None
    """Census cases: the dtype the entry runs in."""

    def __post_init__(self) -> None:
        _bounded_name(self.name, "case name")
        _bounded_name(self.id, "case id", MAX_CASE_ID_CHARS)

    @classmethod
    def from_json(cls, value: object, where: str) -> PlanCase:
        f = Fields(value, where, PlanInvalid)
        return cls(
            f.text("id"),
            f.text("name"),
            f.integer("seed"),
            f.opt_number("timeout_s", nonneg=True),
            f.opt_text("code_sha256", 64),
            f.opt_text("dtype", 80),
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {"id": self.id, "name": self.name, "seed": self.seed}
        out["timeout_s"] = self.timeout_s
        if self.code_sha256 is not None:
            out["code_sha256"] = self.code_sha256
        if self.dtype is not None:
            out["dtype"] = self.dtype
        return out


def _relative_path(path: str) -> bool:
    """A plain relative path (``cases/add.py``): no absolute, empty, '.' or '..' part."""
    if not path or path.startswith("/") or "\\" in path or "\x00" in path:
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


@dataclass(frozen=True)
class PlanFunction:
    """A planned function: its case file (or census entry) and the cases to run."""

    function: str
    case_file: str
    cases: Tuple[PlanCase, ...]
    study_test_file: Optional[str] = None
    stratum: Optional[str] = None
    frequency: Optional[int] = None
    case_file_sha256: Optional[str] = None
    untested_reason: Optional[str] = None
    """The profile's reason the function cannot run: its cases are recorded as skips."""
    file_cases: Optional[Tuple[str, ...]] = None
    """Every case the file registers, as the host read it (schema 2)."""
    census: Optional[CensusEntry] = None

    def __post_init__(self) -> None:
        _bounded_name(self.function, "function name")

    @classmethod
    def from_json(cls, value: object, where: str) -> PlanFunction:
        f = Fields(value, where, PlanInvalid)
        name = f.text("function")
        here = f"{where} ({name[:80]})"
        cases = tuple(PlanCase.from_json(item, f"{here}.cases") for item in f.items("cases"))
        frequency = f.raw("frequency")
        case_file = f.text("case_file")
        census = f.opt("census", CensusEntry.from_json)
        if census is None and not _relative_path(case_file):
            # The worker imports the case file from under the manifest's folder: a plan edited
            # to name another file (absolute, '..') must not make it import that.
            raise f.fail(
                f"case_file {case_file[:80]!r} is not a path under the manifest's folder "
                "(absolute paths and '..' are refused); compile the plan again with bench"
            )
        return cls(
            function=name,
            case_file=case_file,
            cases=cases,
            study_test_file=f.opt_text("study_test_file"),
            stratum=f.opt_text("stratum"),
            frequency=frequency
            if isinstance(frequency, int) and not isinstance(frequency, bool)
            else None,
            case_file_sha256=f.opt_text("case_file_sha256", 64),
            untested_reason=f.opt_text("untested_reason"),
            file_cases=f.opt_texts("file_cases"),
            census=census,
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "function": self.function,
            "study_test_file": self.study_test_file,
            "stratum": self.stratum,
            "frequency": self.frequency,
            "case_file": self.case_file,
            "case_file_sha256": self.case_file_sha256,
            "untested_reason": self.untested_reason,
            "cases": [case.to_json() for case in self.cases],
        }
        if self.file_cases is not None:
            out["file_cases"] = list(self.file_cases)
        if self.census is not None:
            out["census"] = self.census.to_json()
        return out


@dataclass(frozen=True)
class CellEnvironment:
    """What a backend adds to a compiled plan once the cell's environment is prepared: the
    image, what installed it, and the manifest folder as the cell sees it. The one typed
    step between compiling a plan and running it (bench, census, rerun, a Ray node)."""

    image: Optional[ImageRef] = None
    installer: Optional[str] = None
    manifest_root: Optional[str] = None


@dataclass(frozen=True)
class Plan:
    """One cell's compiled plan, as the runner reads it; frozen once compiled."""

    cell: str
    framework: str
    profile: str
    backend: str
    accelerator: PlanAccelerator
    manifest_root: str
    functions: Tuple[PlanFunction, ...]
    rerun_prefix: str
    rules: Tuple[Rule, ...] = ()
    timeouts: Timeouts = field(default_factory=Timeouts)
    max_restarts: int = DEFAULT_MAX_RESTARTS
    timing: TimingSettings = field(default_factory=dict)
    image: Optional[ImageRef] = None
    installer: Optional[str] = None
    """What built the cell's environment (pip, uv; None where nothing was installed)."""
    cases_per_worker: int = 0
    fallback: FallbackSettings = field(default_factory=FallbackSettings)
    differential: bool = False
    """Run each passing or failing case again on the framework's CPU and compare."""
    cell_budget_s: Optional[float] = None
    seed: Optional[int] = None
    portbench_version: Optional[str] = None
    label: Optional[str] = None
    census: Optional[CensusSettings] = None
    origin: Optional[Origin] = None
    provenance: Optional[Provenance] = None
    prediction: Optional[PredictionSettings] = None
    mutation: Optional[MutationSettings] = None
    schema: int = PLAN_SCHEMA
    _index: Dict[str, Tuple[PlanFunction, PlanCase]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        index: Dict[str, Tuple[PlanFunction, PlanCase]] = {}
        for function in self.functions:
            for case in function.cases:
                if case.id in index:
                    raise PlanInvalid(f"case id {case.id[:120]!r} appears twice in the plan")
                index[case.id] = (function, case)
        object.__setattr__(self, "_index", index)

    # -- reading ---------------------------------------------------------------------------
    @classmethod
    def from_json(cls, obj: object, where: str) -> Plan:
        """The plan ``obj`` holds (``where`` names it in errors): one sentence on what is
        wrong with a plan this runner cannot run."""
        f = Fields(obj, where, PlanInvalid)
        schema = f.integer("schema")
        if schema > PLAN_SCHEMA:
            raise PlanInvalid(
                f"{where}: plan schema {schema} is newer than this portbench's {PLAN_SCHEMA}; "
                "use the portbench (and runner) that wrote it"
            )
        if f.opt_text("kind") not in (None, "plan"):
            raise PlanInvalid(f"{where}: not a cell's plan (kind {str(f.raw('kind'))[:40]!r})")
        try:
            return cls._read(f, schema)
        except PlanInvalid:
            raise
        except ContractError as exc:  # a part shared with records names its own error
            raise PlanInvalid(str(exc)) from None

    @classmethod
    def _read(cls, f: Fields, schema: int) -> Plan:
        where = f.where
        return cls(
            schema=schema,
            cell=f.text("cell"),
            framework=f.text("framework"),
            profile=f.text("profile"),
            backend=f.text("backend"),
            accelerator=PlanAccelerator.from_json(f.raw("accelerator"), f"{where}: accelerator"),
            manifest_root=f.text("manifest_root"),
            functions=tuple(
                PlanFunction.from_json(item, f"{where}: a function")
                for item in f.items("functions")
            ),
            rerun_prefix=f.text("rerun_prefix"),
            rules=tuple(Rule.from_json(item, f"{where}: a rule") for item in f.items("rules")),
            timeouts=Timeouts.from_json(f.raw("timeouts"), f"{where}: timeouts"),
            max_restarts=f.integer("max_restarts", 0),
            timing=f.opt("timing", read_timing) or {},
            image=f.opt("image", ImageRef.from_json),
            installer=f.opt_text("installer", 40),
            cases_per_worker=f.opt_integer("cases_per_worker", 0) or 0,
            fallback=f.opt("fallback", FallbackSettings.from_json) or FallbackSettings(),
            differential=bool(f.opt_flag("differential")),
            cell_budget_s=f.opt_number("cell_budget_s", nonneg=True),
            seed=f.opt_integer("seed"),
            portbench_version=f.opt_text("portbench_version", 80),
            label=f.opt_text("label", 200),
            census=f.opt("census", CensusSettings.from_json),
            origin=f.opt("origin", Origin.from_json),
            provenance=f.opt("provenance", Provenance.from_json),
            prediction=f.opt("prediction", PredictionSettings.from_json),
            mutation=f.opt("mutation", MutationSettings.from_json),
        )

    # -- writing ---------------------------------------------------------------------------
    def to_json(self) -> JSONObject:
        """The plan as plan.json holds it (written by the host, read by the runner)."""
        out: JSONObject = {
            "schema": self.schema,
            "kind": "plan",
            "cell": self.cell,
            "framework": self.framework,
            "profile": self.profile,
            "backend": self.backend,
            "accelerator": self.accelerator.to_json(),
            "image": None if self.image is None else self.image.to_json(),
            "manifest_root": self.manifest_root,
            "functions": [function.to_json() for function in self.functions],
            "rules": [rule.to_json() for rule in self.rules],
            "timing": dict(self.timing),
            "timeouts": self.timeouts.to_json(),
            "max_restarts": self.max_restarts,
            "rerun_prefix": self.rerun_prefix,
        }
        if self.schema >= 2:
            out["cases_per_worker"] = self.cases_per_worker
            out["fallback"] = self.fallback.to_json()
            out["differential"] = self.differential
            out["cell_budget_s"] = self.cell_budget_s
        for key, value in (
            ("seed", self.seed),
            ("portbench_version", self.portbench_version),
            ("installer", self.installer),
            ("label", self.label),
        ):
            if value is not None:
                out[key] = value
        for key, part in (
            ("census", self.census),
            ("origin", self.origin),
            ("provenance", self.provenance),
            ("prediction", self.prediction),
            ("mutation", self.mutation),
        ):
            if part is not None:
                out[key] = part.to_json()
        return out

    # -- the one typed step a backend takes --------------------------------------------------
    def in_environment(self, environment: CellEnvironment) -> Plan:
        """This plan with what the prepared environment adds (image, installer, the
        manifest folder as the cell sees it)."""
        return replace(
            self,
            image=environment.image,
            installer=environment.installer,
            manifest_root=environment.manifest_root or self.manifest_root,
        )

    # -- what the runner and readers ask ------------------------------------------------------
    def entry(self, case_id: str) -> Tuple[PlanFunction, PlanCase]:
        """The function and case of ``case_id`` (``KeyError`` if the plan has no such case)."""
        return self._index[case_id]

    def __contains__(self, case_id: object) -> bool:
        return case_id in self._index

    @property
    def case_ids(self) -> List[str]:
        """Every case id, in plan order."""
        return list(self._index)

    @property
    def case_count(self) -> int:
        return len(self._index)

    def case_timeout(self, case_id: str) -> float:
        return self._index[case_id][1].timeout_s or self.timeouts.case_s

    @property
    def timing_mode(self) -> TimingMode:
        mode = self.timing.get("mode")
        return TimingMode(mode) if isinstance(mode, str) else TimingMode.ADAPTIVE

    @property
    def evidence_kind(self) -> EvidenceKind:
        """What this cell's records are: observed, or predicted / declared (issue 30)."""
        return EvidenceKind.OBSERVED if self.prediction is None else self.prediction.evidence_kind

    def siblings(self) -> Tuple[Plan, ...]:
        """A predicted pass's other cells: this plan for each sibling target (its cell id
        and rerun command name that target; its records come from the same worker)."""
        if self.prediction is None or not self.prediction.siblings:
            return ()
        own = self.prediction.target
        framework, middle, profile = self.cell.split("/", 2)
        found = []
        for settings in self.prediction.sibling_settings():
            kind = middle[len(own) :] if middle.startswith(own) else f"-{middle}"
            found.append(
                replace(
                    self,
                    cell=f"{framework}/{settings.target}{kind}/{profile}",
                    prediction=settings,
                    rerun_prefix=self.rerun_prefix.replace(
                        f"--accelerator {own} ", f"--accelerator {settings.target} "
                    ),
                )
            )
        return tuple(found)

    @property
    def is_census(self) -> bool:
        return self.census is not None

    @property
    def is_mutation(self) -> bool:
        return self.mutation is not None


def load_plan(path: str) -> Plan:
    """plan.json at ``path``, read within the document bounds; :class:`PlanInvalid` says in
    one sentence what is wrong."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as exc:
        raise PlanInvalid(f"{path}: cannot read the plan ({exc.strerror})") from None
    try:
        obj = read_json(data, DOCUMENT)
    except LineRefused as exc:
        raise PlanInvalid(f"{path}: the plan does not read ({exc})") from None
    return Plan.from_json(obj, path)
