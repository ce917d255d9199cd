"""What the scoreboard reads from the store: runs (cells), their counted records, and what
each run planned, grouped into series.

A **series** is one framework on one target, for one kind of evidence and one suite of
cases: observed, predicted and declared evidence are never in one series (a predicted cell
``jax/tpu-predicted/current`` is a run of the series ``jax`` on ``tpu``, predicted, beside the
observed series of ``jax`` on ``tpu``, never in it); portbench's cases, the study's tests and
census operators are separate suites. Tampered cells are not read (the store's views
leave them out); the cells page lists them apart.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

import duckdb

from ..store.facts import release_key

__all__ = [
    "PREDICTED_SUFFIX",
    "UNKNOWN",
    "Result",
    "Run",
    "Series",
    "SeriesKey",
    "StoreData",
    "TamperedCell",
    "load_store",
]

#: The release of a run whose cell names none.
UNKNOWN = "?"
#: Predicted cells are named ``<framework>/<target>-predicted/<profile>`` (issue 30).
PREDICTED_SUFFIX = "-predicted"
_TARGET = re.compile(re.escape(PREDICTED_SUFFIX) + "$")


@dataclass(frozen=True, order=True)
class SeriesKey:
    framework: str
    target: str
    kind: str
    """Evidence kind: observed, predicted, declared."""
    suite: str
    """cases (portbench's manifests), study (the study's tests), census (operators)."""
    variant: str = ""
    """A setting that changes what an outcome means: ``soft placement`` (TensorFlow let ops
    leave the device: the study's ``study-soft`` cells, ``bench --soft-placement``)."""

    @property
    def title(self) -> str:
        suite = {"cases": "", "study": " (the study's tests)", "census": " (census)"}
        kind = "" if self.kind == "observed" else f", {self.kind}"
        variant = f", {self.variant}" if self.variant else ""
        return (
            f"{self.framework} on {self.target}{kind}{variant}{suite.get(self.suite, self.suite)}"
        )


@dataclass(frozen=True)
class Run:
    """One cell run the store holds (not tampered)."""

    key: str
    cell_id: str
    framework: str
    accelerator: str
    target: str
    profile: str
    backend: str | None
    suite: str
    release: str | None
    kind: str
    device_model: str | None
    driver: str | None
    runtime: str | None
    python: str | None
    numpy: str | None
    machine: str | None
    started_at: datetime | None
    run_id: str | None
    cell_dir: str | None
    label: str | None
    last_status: str | None
    variant: str
    source: str
    ingested_on: str
    ingested_at: datetime

    @property
    def series(self) -> SeriesKey:
        return SeriesKey(self.framework, self.target, self.kind, self.suite, self.variant)

    @property
    def order(self) -> tuple[int, datetime, str]:
        """Oldest first; a run with no start time (the study's) before any that has one."""
        if self.started_at is None:
            return (0, datetime.min, self.key)
        return (1, self.started_at, self.key)

    @property
    def where(self) -> str:
        """The run as a person finds it: run folder and cell folder."""
        return f"{self.run_id or '?'}/{self.cell_dir or '?'}"


@dataclass(frozen=True)
class Result:
    """A case's counted record in one run."""

    run: Run
    case: str
    function: str
    study_test_file: str | None
    code: str | None
    """The case's own code hash (or its file's): cases pair across runs only where it matches."""
    dtype: str | None
    mode: str | None
    outcome: str
    """pass, fail, skip, error; a record of another kind than its cell's counts as skip
    (a crash the host recorded in a predicted cell: not predictable)."""
    category: str | None
    stage: str | None
    error_type: str | None
    message: str | None
    fallback: bool
    fails_on_cpu: bool
    cold_ms: float | None
    warm_median_ms: float | None
    samples_ms: tuple[float, ...]


@dataclass(frozen=True)
class TamperedCell:
    cell_id: str
    run: str
    machine: str | None
    detail: str | None
    records: int
    source: str


@dataclass
class Series:
    key: SeriesKey
    runs: list[Run] = field(default_factory=list)
    results: dict[str, list[Result]] = field(default_factory=dict)
    """run key -> its results."""
    planned: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)
    """run key -> (function, study test file) its plan lists."""

    def releases(self) -> list[str]:
        """Releases of the series, oldest first (runs of no known release under ``?``)."""
        releases = {r.release or UNKNOWN for r in self.runs}
        return sorted(releases, key=lambda r: release_key(None if r == UNKNOWN else r))

    def runs_of(self, release: str) -> list[Run]:
        """The runs of ``release``, oldest first."""
        runs = (r for r in self.runs if (r.release or UNKNOWN) == release)
        return sorted(runs, key=lambda r: r.order)


@dataclass
class StoreData:
    series: dict[SeriesKey, Series]
    tampered: list[TamperedCell]
    runs: list[Run]
    """Every run read, all series."""


_RUNS = """
SELECT c.cell_key, c.cell_id, c.framework, c.accelerator, c.profile, c.backend, c.suite,
       c.release, c.evidence_kind, c.device_model, c.driver, c.runtime, c.python, c.numpy,
       c.machine, c.started_at, c.run_id, c.cell_dir, c.label, s.last_status,
       CASE WHEN c.profile = 'study-soft' OR coalesce(try_cast(
           json_extract_string(c.plan_json, '$.fallback.soft_placement') AS BOOLEAN), false)
       THEN 'soft placement' ELSE '' END,
       i.source, i.machine, i.ingested_at
FROM cells c JOIN cell_state s USING (cell_key) JOIN ingests i USING (ingest_id)
WHERE NOT s.tampered
"""
_RESULTS = """
SELECT cell_key, case_id, function, study_test_file,
       coalesce(case_code_sha256, case_file_sha256), dtype, mode, outcome, evidence_kind,
       category, stage, error_type, message, fallback, fails_on_cpu, cold_ms,
       warm_median_ms, warm_samples_ms
FROM case_results
"""
_TAMPERED = """
SELECT c.cell_id, coalesce(c.run_id, '?') || '/' || coalesce(c.cell_dir, '?'), c.machine,
       s.integrity_detail, (SELECT count(*) FROM records r WHERE r.cell_key = c.cell_key),
       i.source
FROM cells c JOIN cell_state s USING (cell_key) JOIN ingests i USING (ingest_id)
WHERE s.tampered ORDER BY c.cell_id
"""


def _run(row: tuple[object, ...]) -> Run:
    (key, cell_id, framework, accelerator, profile, backend, suite, release, kind, device,
     driver, runtime, python, numpy, machine, started, run_id, cell_dir, label, status,
     variant, source, ingested_on, ingested_at) = row  # fmt: skip
    target = str(accelerator) if kind == "observed" else _TARGET.sub("", str(accelerator))
    return Run(
        str(key), str(cell_id), str(framework), str(accelerator), target, str(profile),
        _opt(backend), str(suite), _opt(release), str(kind), _opt(device), _opt(driver),
        _opt(runtime), _opt(python), _opt(numpy), _opt(machine),
        started if isinstance(started, datetime) else None, _opt(run_id), _opt(cell_dir),
        _opt(label), _opt(status), str(variant), str(source), str(ingested_on),
        ingested_at if isinstance(ingested_at, datetime) else datetime.min,
    )  # fmt: skip


def _opt(value: object) -> str | None:
    return None if value is None else str(value)


def load_store(con: duckdb.DuckDBPyConnection) -> StoreData:
    """Every run, counted record and planned function the store's views give."""
    runs = {row[0]: _run(row) for row in con.execute(_RUNS).fetchall()}
    series: dict[SeriesKey, Series] = {}
    for run in runs.values():
        series.setdefault(run.series, Series(run.series)).runs.append(run)
    results: dict[str, list[Result]] = defaultdict(list)
    cursor = con.execute(_RESULTS)
    while batch := cursor.fetchmany(50_000):
        for row in batch:
            owner = runs.get(str(row[0]))
            if owner is not None:
                results[owner.key].append(_result(owner, row))
    planned: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for key, function, test_file in con.execute(
        "SELECT cell_key, function, study_test_file FROM planned"
    ).fetchall():
        if key in runs:
            planned[str(key)].append((str(function), _opt(test_file)))
    for item in series.values():
        for run in item.runs:
            item.results[run.key] = results.get(run.key, [])
            item.planned[run.key] = planned.get(run.key, [])
    tampered = [
        TamperedCell(str(a), str(b), _opt(c), _opt(d), int(e), str(f))
        for a, b, c, d, e, f in con.execute(_TAMPERED).fetchall()
    ]
    return StoreData(series, tampered, list(runs.values()))


def _result(run: Run, row: tuple[object, ...]) -> Result:
    (_, case, function, test_file, code, dtype, mode, outcome, kind, category, stage,
     error_type, message, fallback, cpu_too, cold, warm, samples) = row  # fmt: skip
    if kind != run.kind:
        outcome = "skip"
    return Result(
        run, str(case), str(function), _opt(test_file), _opt(code), _opt(dtype), _opt(mode),
        str(outcome), _opt(category), _opt(stage), _opt(error_type), _opt(message),
        bool(fallback), bool(cpu_too), _float(cold), _float(warm),
        tuple(float(v) for v in samples) if isinstance(samples, list) else (),
    )  # fmt: skip


def _float(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None
