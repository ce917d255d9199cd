"""Importing the study's published results (for-ai/portability) as portbench cells.

The study kept, per device VM, up to three timing files (``{"file.py:test": {"operations":
[seconds, ...], "test_time": s}}``) and, for some VMs, pytest-json reports with each
sub-test's outcome. Each device becomes one cell under profile ``study`` (and TensorFlow's
soft-placement runs cells under ``study-soft``): one record per sub-test (a study "case"),
its outcome from the device's newest standard-placement report (:mod:`.study_sources`), its
timing the mean of every timed operation over the runs. Nothing is invented where the study
kept nothing, and nothing is dropped without a line that says so:

- a device with no usable report (A100, TPU v2, the CPU runs of TensorFlow and JAX, JAX's
  TPU, whose report is its T4 report) gets records whose outcome is unknown (``skip``,
  ``study_outcome: unrecorded``): its functions count as untested, and its timings still
  feed the latency tables;
- a sub-test the study's harness failed or that tests nothing carries ``harness`` (the rule
  and why, :mod:`.harness`); a failure so marked has the category ``harness``;
- the study's timer mixed compilation and execution in one call and synchronized
  inconsistently (see paper/README.md): its latencies are labelled ``study mean``, never
  ``warm``.

Input: the study's repository as a directory or an archive (``.tar``, ``.tar.gz``,
``.tar.xz``), or by default ``paper/study-timings-b220f30.tar.xz`` (its timing folders at
commit b220f30, committed here so the report works offline).
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import statistics
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from portbench_runner.contract import (
    Rule,
    SessionLine,
    SessionStatus,
    StudyFunction,
    StudyPlan,
    StudyRecord,
    dumps,
    member,
)

from ..paths import manifests_dir, project_root, state_dir
from ..rules import load_rules
from .harness import HarnessRule, harness_rule_for, load_harness_rules
from .study_sources import (
    REPOSITORY,
    SOURCES,
    ChosenReport,
    StudyFiles,
    StudySource,
    choose_report,
    unused_because,
)

__all__ = [
    "IMPORTER_VERSION",
    "default_archive",
    "import_study",
    "study_cells_dir",
]

COMMIT = "b220f30acd8c27b9389d5e5800328ca825e7ec9e"
#: Raised whenever the importer writes other cells from the same input, so that a cache of
#: cells written by an older importer is never read as the study (3: study plans are a
#: kind of their own, ``study-plan``; every record is written through the contract. 4:
#: failures are categorized from their whole message and pytest's exception lines, kept in
#: ``error.traceback``).
IMPORTER_VERSION = 4
#: How much of a failure's text the rules read, and how much of it a record keeps.
CLASSIFY_CHARS = 64_000
KEPT_CHARS = 4000
UNRECORDED = "the study kept no test report for this device: outcome unknown"

_DEVICE_SUFFIX = re.compile(r"_(cuda|xla|cpu)(?=_|$)")

TEST_DIRS = {
    "torch": "pytorch_tests_reduced",
    "tensorflow": "tensorflow_tests_reduced",
    "jax": "jax_tests_reduced",
}
VERSIONS = {
    "torch": "1.12 (study lock: 1.12.1)",
    "tensorflow": "2.11 (study lock: 2.11.1)",
    "jax": "0.4.8 (jaxlib 0.4.7)",
}


def default_archive() -> Path:
    return project_root() / "paper" / f"study-timings-{COMMIT[:7]}.tar.xz"


def _category_sources() -> list[Path]:
    """Every file whose content decides an imported record's category: the harness rules,
    each framework's failure rules and the runner's matcher that applies them (the module
    this process imports, which is the one the importer runs)."""
    matcher = _load_classifier().__file__
    return [
        project_root() / "paper" / "harness.toml",
        *(manifests_dir() / fw / "rules.toml" for fw in sorted(TEST_DIRS)),
        Path(matcher or "classify.py"),
    ]


def study_cells_dir(archive: Path) -> Path:
    """Where the cells imported from ``archive`` are cached: keyed by its content, the
    importer's version, and every file that decides a record's category (the harness rules,
    the frameworks' rules, the matcher), so a rule edit reaches the study's cells too."""
    digest = hashlib.sha256(archive.read_bytes())
    digest.update(f"importer {IMPORTER_VERSION}".encode())
    for path in _category_sources():
        # The name as well as the bytes: a file that goes missing changes the key too.
        digest.update(f"\0{path.parent.name}/{path.name}\0".encode())
        if path.exists():
            digest.update(path.read_bytes())
    return state_dir() / "study" / digest.hexdigest()[:12]


def _load_classifier() -> ModuleType:
    # The runner's own matcher, so imported failures are categorized by exactly the rules
    # that categorize portbench's.
    from portbench_runner import classify

    return classify


def _study_functions(framework: str) -> list[dict[str, str]]:
    path = project_root() / "paper" / "functions.csv"
    with open(path, newline="", encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle) if r["framework"] == framework]


def _exception_lines(longrepr: object) -> str:
    """The ``E`` lines of pytest's report of a failure: every exception it printed, the
    chain included (the error a comparison helper raised inside, say), without the code."""
    lines = [line[1:].strip() for line in str(longrepr or "").splitlines() if line[:1] == "E"]
    return "\n".join(line for line in lines if line)[-CLASSIFY_CHARS:]


def _failure(test: dict[str, object]) -> tuple[str, list[str], str, str] | None:
    """(stage, exception type names, message, pytest's exception lines) of the first failed
    phase, or None."""
    for stage in ("setup", "call", "teardown"):
        phase = member(test, stage)
        if phase.get("outcome") == "failed":
            crash = member(phase, "crash")
            message = str(crash.get("message") or phase.get("longrepr") or "")
            head, sep, _ = message.partition(": ")
            names = [head.rsplit(".", 1)[-1]] if sep and re.fullmatch(r"[\w.]+", head) else []
            lines = _exception_lines(phase.get("longrepr"))
            return ("setup" if stage == "setup" else "call"), names, message, lines
    return None


def _skip_reason(test: dict[str, object]) -> str:
    for stage in ("setup", "call"):
        longrepr = member(test, stage).get("longrepr")
        if longrepr:
            return str(longrepr)[-300:]
    return "skipped by the study's test"


def _timing(
    runs: list[list[float]], test_times: list[float], n_files: int
) -> dict[str, object] | None:
    ops = [op for run in runs for op in run]
    if not ops:
        return None
    ms = sorted(op * 1000 for op in ops)
    quartiles = statistics.quantiles(ms, n=4) if len(ms) > 1 else [ms[0]] * 3
    timed_runs = sum(1 for run in runs if run)
    return {
        "cold_ms": None,
        "warm": None,
        "study": {
            "mean_ms": statistics.fmean(ms),
            "median_ms": statistics.median(ms),
            "q1_ms": quartiles[0],
            "q3_ms": quartiles[2],
            "min_ms": ms[0],
            "operations": len(ms),
            "runs": len(runs),
            # The study's tables use only sub-tests with timed calls in every run file (a
            # run in which a sub-test timed nothing leaves it out of Tables 5-7).
            "timed_in_every_run": timed_runs == n_files,
            "per_run_mean_ms": [statistics.fmean(r) * 1000 for r in runs if r],
            "test_time_s": test_times,
        },
    }


def _outcome_fields(
    test: dict[str, object] | None,
    name: str,
    note: str,
    rules: list[Rule],
    harness: tuple[HarnessRule, ...],
    classifier: ModuleType,
) -> dict[str, object]:
    """The record's outcome fields from the device's report (``test`` is None when the
    sub-test is absent from it)."""
    if test is None:
        fields: dict[str, object] = {
            "study_outcome": "absent from report",
            "reason": "timed, but absent from this device's test report: outcome unknown",
        }
        rule = harness_rule_for(harness, name, None, note)
    else:
        outcome = str(test.get("outcome"))
        failure = _failure(test)
        fields = {"study_outcome": outcome}
        if outcome in ("passed", "xpassed"):
            fields.update(outcome="pass", reason=None)
            if failure is not None:
                # pytest-json-report lists two PyTorch tests as passed whose call phase
                # failed (its summary counts them failed); the study's tables read the listed
                # outcome, and so does the recount, with the failure kept beside it.
                fields["study_outcome"] = "passed (listed so; its call phase failed)"
                fields["error"] = {"type": None, "message": failure[2][:KEPT_CHARS]}
        elif outcome == "failed":
            stage, names, message, lines = failure or ("call", [], "", "")
            # The rules read the whole message and the exception lines: a placement error
            # may sit past the first 4000 characters of a graph's trace, or inside the
            # exception a comparison helper raised while comparing.
            text = f"{message[:CLASSIFY_CHARS]}\n{lines}"
            category, rule_id = classifier.classify_names(names, text, stage, rules)
            fields.update(
                outcome="fail",
                reason=None,
                stage=stage,
                category=category,
                rule=rule_id,
                error={
                    "type": names[0] if names else None,
                    "message": message[:KEPT_CHARS],
                    "traceback": lines[-KEPT_CHARS:],
                },
            )
        elif outcome in ("skipped", "xfailed"):
            fields.update(reason=_skip_reason(test))
        elif outcome == "error":
            _, names, message, _lines = failure or ("call", [], "", "")
            fields.update(
                outcome="error",
                reason="the study's test errored outside the function (pytest error)",
                error={"type": names[0] if names else None, "message": message[:KEPT_CHARS]},
            )
        else:
            fields["reason"] = f"the report gives the outcome {outcome!r}"
        failed_with: str | None = None
        if fields.get("outcome") == "fail":
            failed_with = str(member(fields, "error").get("message") or "")
        rule = harness_rule_for(harness, name, failed_with, note)
    if rule is not None:
        fields["harness"] = {"rule": rule.id, "why": rule.why}
        if fields.get("outcome") == "fail":
            fields.update(category="harness", rule=f"harness:{rule.id}")
    return fields


def _read_runs(
    files: StudyFiles, source: StudySource
) -> tuple[dict[str, list[list[float]]], dict[str, list[float]], list[str]]:
    runs: dict[str, list[list[float]]] = {}
    test_times: dict[str, list[float]] = {}
    used: list[str] = []
    for n in (1, 2, 3):
        path = source.timings.format(n=n)
        data = files.json(path)
        if data is None:
            continue
        used.append(path)
        for key, value in data.items():
            if source.select(key):
                runs.setdefault(key, []).append([float(x) for x in value.get("operations") or []])
                if value.get("test_time") is not None:
                    test_times.setdefault(key, []).append(float(value["test_time"]))
    return runs, test_times, used


def _records(
    source: StudySource,
    files: StudyFiles,
    report: ChosenReport,
    rules: list[Rule],
    harness: tuple[HarnessRule, ...],
    classifier: ModuleType,
) -> tuple[list[StudyRecord], list[str], list[str]]:
    rows = {r["study_test_file"]: r for r in _study_functions(source.framework)}
    runs, test_times, used = _read_runs(files, source)
    # Record key -> (its entry in the timing files, its test in the report): every test of
    # the report and every timed sub-test, each once.
    entries: dict[str, tuple[str | None, dict[str, object] | None]] = {}
    if report.tests is not None:
        entries = {k: v for k, v in report.tests.items() if source.select(k)}
    timed = {timing_key for timing_key, _ in entries.values()}
    for key in runs:
        if key not in timed:
            entries[key] = (key, None)
    records = []
    extra: list[str] = []
    for key in sorted(entries):
        timing_key, test = entries[key]
        test_file, _, subtest = key.partition(":")
        row = rows.get(test_file)
        if row is None:
            # A test file outside the study's function list (not a sampled function): listed
            # in the cell's env.json and in NOT-IMPORTED.txt, never silently gone.
            extra.append(key)
            continue
        function = row["function"]
        name = _DEVICE_SUFFIX.sub("", subtest)
        record: dict[str, object] = {
            "schema": 1,
            "kind": "study",
            "cell": source.cell,
            "framework": source.framework,
            "accelerator": source.accelerator,
            "profile": source.profile,
            "function": function,
            "study_test_file": test_file,
            "case": f"{function}::{name}",
            "case_name": name,
            "case_file": f"src/{TEST_DIRS[source.framework]}/{test_file}",
            "study_key": key,
            "outcome": "skip",
            "study_outcome": "unrecorded",
            "stage": None,
            "category": None,
            "rule": None,
            "reason": UNRECORDED,
            "error": None,
            "harness": None,
            "timing": _timing(
                runs.get(timing_key or "", []), test_times.get(timing_key or "", []), len(used)
            ),
        }
        if report.tests is not None:
            record.update(_outcome_fields(test, name, row["notes"], rules, harness, classifier))
        else:
            rule = harness_rule_for(harness, name, None, row["notes"])
            if rule is not None:
                record["harness"] = {"rule": rule.id, "why": rule.why}
        # Written through the contract: what the importer writes, the report reads back.
        records.append(StudyRecord.from_json(record))
    return records, used, extra


def _plan(source: StudySource) -> StudyPlan:
    return StudyPlan(
        source.cell,
        source.framework,
        source.accelerator,
        source.profile,
        tuple(
            StudyFunction(
                r["function"],
                r["study_test_file"],
                r["stratum"],
                int(r["frequency"]) if r["frequency"].isdigit() else None,
                r["paper_label"],
                r["in_paper_latency_table"] == "yes",
            )
            for r in _study_functions(source.framework)
        ),
    )


def _env(
    source: StudySource, report: ChosenReport, used: list[str], extra: list[str]
) -> dict[str, object]:
    return {
        "schema": 1,
        "kind": "env",
        "cell": source.cell,
        "backend": "study",
        "framework_version": VERSIONS[source.framework],
        "python": {"version": source.python},
        "device": {"device_name": source.hardware},
        "started_at": None,
        "study": {
            "repository": REPOSITORY,
            "commit": COMMIT,
            "importer_version": IMPORTER_VERSION,
            "timings": used,
            "runs": len(used),
            "report": report.path,
            "report_note": report.note,
            "reports_passed_over": report.passed_over,
            "placement": "soft (TensorFlow may run ops on the CPU)"
            if source.profile == "study-soft"
            else "standard",
            "note": source.note,
            "subtests_outside_function_list": extra,
            "timing_note": (
                "one timed call per operation, compilation included, sync as the study's "
                "harness did it: latencies are the study's means, not warm medians"
            ),
        },
    }


def _write_cell(
    out: Path, plan: StudyPlan, env: dict[str, object], records: list[StudyRecord]
) -> Path:
    cell_dir = out / f"{plan.framework}-{plan.accelerator}-{plan.profile}"
    cell_dir.mkdir(parents=True, exist_ok=True)
    (cell_dir / "plan.json").write_text(
        json.dumps(plan.to_json(), indent=1) + "\n", encoding="utf-8"
    )
    (cell_dir / "env.json").write_text(json.dumps(env, indent=1) + "\n", encoding="utf-8")
    (cell_dir / "results.jsonl").write_text(
        "".join(dumps(r.to_json()) + "\n" for r in records), encoding="utf-8"
    )
    session = SessionLine(
        plan.cell,
        SessionStatus.COMPLETE,
        "imported from the study's published results",
        records_written=len(records),
        index=0,
    )
    (cell_dir / "sessions.jsonl").write_text(dumps(session.to_json()) + "\n", encoding="utf-8")
    return cell_dir


def _iter_sources(frameworks: list[str] | None) -> Iterator[StudySource]:
    for source in SOURCES:
        if frameworks is None or source.framework in frameworks:
            yield source


def import_study(source_path: Path, out: Path, frameworks: list[str] | None = None) -> list[Path]:
    """Write one cell directory per study device under ``out``; return them. Every file of
    the input that no cell reads, and every sub-test outside the study's function list, is
    listed with why in ``out/NOT-IMPORTED.txt``."""
    files = StudyFiles(source_path)
    classifier = _load_classifier()
    harness = load_harness_rules()
    written = []
    read: dict[str, str] = {}
    passed_over: dict[str, str] = {}
    outside: list[str] = []
    for source in _iter_sources(frameworks):
        report = choose_report(files, source)
        records, used, extra = _records(
            source, files, report, load_rules(source.framework), harness, classifier
        )
        if not used:
            continue
        read.update(dict.fromkeys(used, source.cell))
        if report.path:
            read[report.path] = source.cell
        passed_over.update(report.passed_over)
        outside += [f"{source.cell}: {key}" for key in extra]
        written.append(_write_cell(out, _plan(source), _env(source, report, used, extra), records))
    lines = ["Study files present in the input but read by no cell, with why:"]
    for path in files.paths():
        if path not in read:
            lines.append(f"{path}: {passed_over.get(path) or unused_because(path)}")
    lines.append("")
    lines.append("Sub-tests outside the study's function list (not a sampled function):")
    lines += sorted(set(outside)) or ["(none)"]
    (out / "NOT-IMPORTED.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return written
