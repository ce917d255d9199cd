"""Evidence from run directories, and the names the manifests curate.

Cells are read through the typed results layer (:mod:`portbench.results`): no link
followed, lines bounded, every record checked field by field (``CaseRecord``). The JSON
schema pass that ``report`` adds is left out here (``validate=False``): a scan reads a
record's outcome, category and message, which the typed reader checks already, and the
schema pass is most of the time a scan of a results folder would take. Imported study
cells (``portbench import-study``) are read by the report's own reader of study records;
census cells by the report's census reader (support per operator and dtype).

The manifests name functions as their framework's users write them (``tf.nn.relu``); the
scanner resolves ``import tensorflow as tf`` to ``tensorflow.nn.relu``: names are
translated here, once.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ResultsError, UsageError
from ..manifest import FRAMEWORKS
from ..paths import manifests_dir
from ..plan import PLAN_SCHEMA
from ..report.census import census_cases, is_census
from ..report.load import ENV_SCHEMA, Cell, find_cells, load_cell
from ..results import read_document, read_results
from .evidence import CaseEvidence, EvidenceKind, OperatorEvidence, public_release, record_kind

__all__ = ["ManifestNames", "RunDirectories", "scanner_name"]

#: How the manifests and the study abbreviate a framework's root module.
ABBREVIATIONS = {"tf.": "tensorflow.", "np.": "numpy."}
#: The study's TensorFlow runs with soft placement on (profile of their imported cells).
SOFT_PLACEMENT = "study-soft"
#: Characters of a failure message kept per case.
MESSAGE_CHARS = 300


def scanner_name(name: str) -> str:
    """A manifest's function name as the scanner spells it: ``tf.x`` -> ``tensorflow.x``."""
    for short, full in ABBREVIATIONS.items():
        if name.startswith(short):
            return full + name[len(short) :]
    return name


def _message(record: dict[str, Any]) -> str:
    error = record.get("error")
    text = ""
    if isinstance(error, dict):
        kind, message = str(error.get("type") or ""), str(error.get("message") or "")
        kind = kind.removeprefix("builtins.")
        head = message.split(":", 1)[0]
        # Study messages start with the exception's own name (often qualified): once is enough.
        named = head.rsplit(".", 1)[-1] == kind or message.startswith(kind)
        text = f"{kind}: {message}" if kind and not named else message
    text = text or str(record.get("reason") or "")
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line[:MESSAGE_CHARS]


@dataclass
class RunDirectories:
    """Every cell under the given folders (run directories, cell directories, folders of
    runs), read once on first use."""

    paths: list[Path]
    _cases: dict[str, list[CaseEvidence]] = field(default_factory=dict)
    _operators: dict[str, list[OperatorEvidence]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    cells: int = 0
    _loaded: bool = False

    def describe(self) -> str:
        names = ", ".join(str(p) for p in self.paths) or "no folder"
        return f"run directories ({names}): {self.cells} cell(s)"

    def cases(self, framework: str, functions: Iterable[str] | None = None) -> list[CaseEvidence]:
        self._load()
        return list(self._cases.get(framework, ()))

    def operators(
        self, framework: str, operators: Iterable[str] | None = None
    ) -> list[OperatorEvidence]:
        self._load()
        return list(self._operators.get(framework, ()))

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        existing = [p for p in self.paths if p.exists()]
        for path in find_cells(existing) if existing else []:
            try:
                self._load_cell(path)
            except ResultsError as exc:
                self.problems.append(str(exc))

    def _load_cell(self, path: Path) -> None:
        plan = read_document(path / "plan.json", "plan", schema_max=PLAN_SCHEMA)
        env = read_document(path / "env.json", "env", schema_max=ENV_SCHEMA)
        source = plan or env or {}
        cell_id = str(source.get("cell") or "")
        parts = cell_id.split("/")
        if len(parts) != 3 or parts[0] not in FRAMEWORKS:
            return
        framework, accelerator, profile = parts
        if profile == SOFT_PLACEMENT:
            # TensorFlow's soft-placement runs of the study let ops leave the device: never
            # a device's outcome (the report keeps them apart for the same reason).
            return
        release = public_release(str((env or {}).get("framework_version") or ""))
        self.cells += 1
        backend = {(plan or {}).get("backend"), (env or {}).get("backend")}
        if "study" in backend:
            self._study(load_cell(path), framework, accelerator, release)
            return
        read = read_results(path / "results.jsonl", validate=False)
        if read.skipped:
            self.problems.append(read.summary(path / "results.jsonl"))
        records = read.dicts()
        where = str(path)
        if isinstance((plan or {}).get("census"), dict):
            self._census(path, plan, env, records, framework, accelerator, release)
            return
        out = self._cases.setdefault(framework, [])
        for record in records:
            if str(record.get("case", "")).startswith("census:"):
                continue
            reference = record.get("cpu_reference")
            out.append(
                CaseEvidence(
                    framework=framework,
                    function=scanner_name(str(record.get("function", ""))),
                    case=str(record.get("case", "")),
                    accelerator=str(record.get("accelerator") or accelerator),
                    release=release,
                    kind=record_kind(record),
                    outcome=str(record.get("outcome", "")),
                    category=record.get("category"),
                    fallback=isinstance(record.get("evidence"), dict)
                    and record["evidence"].get("fallback") is True,
                    message=_message(record),
                    source=where,
                    fails_on_cpu=isinstance(reference, dict)
                    and reference.get("outcome") == "fail"
                    and record.get("outcome") == "fail",
                )
            )

    def _study(self, cell: Cell, framework: str, accelerator: str, release: str) -> None:
        out = self._cases.setdefault(framework, [])
        for record in cell.records:
            # The study's harness failing is not the framework failing: no evidence.
            if record.get("category") == "harness":
                continue
            out.append(
                CaseEvidence(
                    framework=framework,
                    function=scanner_name(str(record.get("function", ""))),
                    case=str(record.get("study_key") or record.get("case", "")),
                    accelerator=accelerator,
                    release=release,
                    kind=EvidenceKind.OBSERVED,
                    outcome=str(record.get("outcome", "")),
                    category=record.get("category"),
                    fallback=False,
                    message=_message(record),
                    source=str(cell.path),
                )
            )

    def _census(
        self,
        path: Path,
        plan: dict[str, Any] | None,
        env: dict[str, Any] | None,
        records: list[dict[str, Any]],
        framework: str,
        accelerator: str,
        release: str,
    ) -> None:
        cell = Cell(path, "", framework, accelerator, "", plan, env, [], records)
        if not is_census(cell):
            return
        # A cell is observed or predicted as a whole (issue 30 makes predicted cells).
        kinds = {record_kind(r) for r in records}
        if len(kinds) > 1:
            self.problems.append(f"{path}: records of several evidence kinds; cell left out")
            return
        kind = kinds.pop() if kinds else EvidenceKind.OBSERVED
        out = self._operators.setdefault(framework, [])
        for case in census_cases(cell):
            out.append(
                OperatorEvidence(
                    framework=framework,
                    operator=case.operator,
                    dtype=case.dtype,
                    accelerator=accelerator,
                    release=release,
                    kind=kind,
                    support=case.support,
                    message=case.message,
                    source=str(path),
                )
            )


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
