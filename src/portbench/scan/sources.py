"""Evidence from run directories, and the names the manifests curate.

Cells are read as the report reads them (:func:`portbench.report.load.load_cell`): plan and
env through the contract's typed documents, records through the typed results layer (no
link followed, lines bounded, every record checked field by field). Each record says its
own evidence kind (``CaseRecord.evidence_kind``; a study record is observed); a census
cell's pairs take the one kind of its records. A mutation run's cells are never evidence.

The manifests name functions as their framework's users write them (``tf.nn.relu``); the
scanner resolves ``import tensorflow as tf`` to ``tensorflow.nn.relu``: names are
translated here, once.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from portbench_runner.contract import (
    CaseRecord,
    Category,
    EvidenceKind,
    Plan,
    StudyRecord,
)

from ..errors import ResultsError, UsageError
from ..manifest import FRAMEWORKS
from ..paths import manifests_dir
from ..report.census import census_cases, is_census
from ..report.load import Cell, find_cells, load_cell
from .evidence import CaseEvidence, OperatorEvidence, public_release

__all__ = [
    "CellEvidence",
    "ManifestNames",
    "RunDirectories",
    "record_kind",
    "scanner_name",
    "speaks_for",
]

#: How the manifests and the study abbreviate a framework's root module.
ABBREVIATIONS = {"tf.": "tensorflow.", "np.": "numpy."}
#: The study's TensorFlow runs with soft placement on (profile of their imported cells).
SOFT_PLACEMENT = "study-soft"
#: Characters of a failure message kept per case.
MESSAGE_CHARS = 300
#: Census case ids (``census:<operator>::<dtype>``): operator-level, never a function's case.
CENSUS_PREFIX = "census:"
#: A predicted (or declared) cell's id names its target so: ``jax/tpu-predicted/current``
#: (issue 30), never the id of an observed cell.
PREDICTED_SUFFIX = "-predicted"


def speaks_for(accelerator: str, kind: EvidenceKind) -> str:
    """The target a piece of evidence speaks for: a predicted or declared cell's target
    without the suffix its id carries; an observed cell's own accelerator."""
    if kind is EvidenceKind.OBSERVED:
        return accelerator
    return accelerator.removesuffix(PREDICTED_SUFFIX)


def scanner_name(name: str) -> str:
    """A manifest's function name as the scanner spells it: ``tf.x`` -> ``tensorflow.x``."""
    for short, full in ABBREVIATIONS.items():
        if name.startswith(short):
            return full + name[len(short) :]
    return name


def record_kind(record: CaseRecord | StudyRecord) -> EvidenceKind:
    """The evidence kind of one record: its own (schema 4 says it; absent, observed); the
    study's published results ran on their devices (observed)."""
    return record.evidence_kind if isinstance(record, CaseRecord) else EvidenceKind.OBSERVED


def _message(record: CaseRecord | StudyRecord) -> str:
    text = ""
    error = record.error
    if error is not None:
        kind, message = (error.type or "").removeprefix("builtins."), error.message or ""
        head = message.split(":", 1)[0]
        # Study messages start with the exception's own name (often qualified): once is enough.
        named = head.rsplit(".", 1)[-1] == kind or message.startswith(kind)
        text = f"{kind}: {message}" if kind and not named else message
    text = text or record.reason or ""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line[:MESSAGE_CHARS]


def _skipped(cell: Cell) -> str:
    """The sentence the results layer gives for a cell's unreadable lines ('' if none)."""
    if not cell.unreadable_lines:
        return ""
    return (
        f"{cell.path / 'results.jsonl'}: {cell.unreadable_lines} line(s) skipped as "
        f"unreadable ({'; '.join(cell.problems)}); their cases count as not recorded"
    )


@dataclass
class CellEvidence:
    """Evidence of typed cells (the report's :class:`Cell`, from run directories or a
    store), by framework: function-level cases and census operators, each piece with its
    kind, and the (accelerator, release) pairs every cell holds."""

    _cases: dict[str, list[CaseEvidence]] = field(default_factory=dict)
    _operators: dict[str, list[OperatorEvidence]] = field(default_factory=dict)
    _held: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    cells: int = 0

    def cases(self, framework: str) -> list[CaseEvidence]:
        return list(self._cases.get(framework, ()))

    def operators(self, framework: str) -> list[OperatorEvidence]:
        return list(self._operators.get(framework, ()))

    def functions(self, framework: str) -> set[str]:
        return {case.function for case in self._cases.get(framework, ())}

    def held(self, framework: str) -> set[tuple[str, str]]:
        return set(self._held.get(framework, ()))

    def add(self, cell: Cell, cases: bool = True, operators: bool = True) -> None:
        """Read ``cell``'s evidence: its cases (``cases``), its census pairs (``operators``)."""
        if isinstance(cell.plan, Plan) and cell.plan.is_mutation:
            return  # a mutation run's records are never results (issue 33)
        parts = cell.cell_id.split("/")
        if len(parts) != 3 or parts[0] not in FRAMEWORKS:
            return
        framework, accelerator, profile = parts
        if profile == SOFT_PLACEMENT:
            # TensorFlow's soft-placement runs of the study let ops leave the device: never
            # a device's outcome (the report keeps them apart for the same reason).
            return
        if cell.plan is None and cell.plan_problem:
            self.problems.append(cell.plan_problem)
        if skipped := _skipped(cell):
            self.problems.append(skipped)
        release = public_release(cell.env.framework_version if cell.env is not None else "")
        self.cells += 1
        kind = cell.plan.evidence_kind if isinstance(cell.plan, Plan) else EvidenceKind.OBSERVED
        self._held.setdefault(framework, set()).add((speaks_for(accelerator, kind), release))
        if is_census(cell):
            if operators:
                self._census(cell, framework, accelerator, release)
        elif cases:
            self._function_cases(cell, framework, accelerator, release)

    def _function_cases(self, cell: Cell, framework: str, accelerator: str, release: str) -> None:
        out = self._cases.setdefault(framework, [])
        where = str(cell.path)
        for record in cell.records:
            # The study's harness failing is not the framework failing: no evidence.
            if record.category is Category.HARNESS or record.case.startswith(CENSUS_PREFIX):
                continue
            study = isinstance(record, StudyRecord)
            # Two test files of the study can hold a test of one name: its key is unique.
            case = record.key if isinstance(record, StudyRecord) else record.case
            kind = record_kind(record)
            on = accelerator if study else (record.accelerator or accelerator)
            out.append(
                CaseEvidence(
                    framework=framework,
                    function=scanner_name(record.function),
                    case=case,
                    accelerator=speaks_for(on, kind),
                    release=release,
                    kind=kind,
                    outcome=record.outcome.value,
                    category=record.category.value if record.category is not None else None,
                    fallback=record.fallback_marked,
                    message=_message(record),
                    source=where,
                    fails_on_cpu=record.fails_on_cpu,
                )
            )

    def _census(self, cell: Cell, framework: str, accelerator: str, release: str) -> None:
        # A cell is observed or predicted as a whole (issue 30 makes predicted cells).
        kinds = {record_kind(r) for r in cell.records}
        if len(kinds) > 1:
            self.problems.append(f"{cell.path}: records of several evidence kinds; cell left out")
            return
        kind = kinds.pop() if kinds else EvidenceKind.OBSERVED
        out = self._operators.setdefault(framework, [])
        for case in census_cases(cell):
            out.append(
                OperatorEvidence(
                    framework=framework,
                    operator=case.operator,
                    dtype=case.dtype,
                    accelerator=speaks_for(accelerator, kind),
                    release=release,
                    kind=kind,
                    support=case.support,
                    message=case.message,
                    source=str(cell.path),
                )
            )


@dataclass
class RunDirectories:
    """Every cell under the given folders (run directories, cell directories, folders of
    runs), read once on first use."""

    paths: list[Path]
    _read: CellEvidence = field(default_factory=CellEvidence)
    _loaded: bool = False

    @property
    def problems(self) -> list[str]:
        return self._read.problems

    @property
    def cells(self) -> int:
        return self._read.cells

    def describe(self) -> str:
        names = ", ".join(str(p) for p in self.paths) or "no folder"
        return f"run directories ({names}): {self.cells} cell(s)"

    def prepare(self) -> None:
        self._load()  # every cell is read whatever the project uses

    def functions(self, framework: str) -> set[str]:
        self._load()
        return self._read.functions(framework)

    def held(self, framework: str) -> set[tuple[str, str]]:
        self._load()
        return self._read.held(framework)

    def cases(self, framework: str, functions: Iterable[str] | None = None) -> list[CaseEvidence]:
        self._load()
        return self._read.cases(framework)

    def operators(
        self, framework: str, operators: Iterable[str] | None = None
    ) -> list[OperatorEvidence]:
        self._load()
        return self._read.operators(framework)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        existing = [p for p in self.paths if p.exists()]
        for path in find_cells(existing) if existing else []:
            try:
                self._read.add(load_cell(path))
            except ResultsError as exc:
                self.problems.append(str(exc))


@dataclass(frozen=True)
class ManifestNames:
    """The functions portbench has cases for, per framework, in the scanner's spelling:
    an API used by a project with no evidence on a target, but cases here, is one
    ``portbench bench`` away from a verdict."""

    functions: dict[str, dict[str, str]]
    """Per framework: scanner name -> the manifest's own name."""

    @classmethod
    def read(cls, root: Path | None = None) -> ManifestNames:
        folder = root or manifests_dir()
        functions: dict[str, dict[str, str]] = {}
        for framework in FRAMEWORKS:
            path = folder / framework / "manifest.toml"
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                continue
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                raise UsageError(f"{path}: cannot read the manifest ({exc})") from None
            rows = data.get("function") or []
            functions[framework] = {
                scanner_name(str(row["function"])): str(row["function"])
                for row in rows
                if isinstance(row, dict) and isinstance(row.get("function"), str)
            }
        return cls(functions)
