"""Importing the study's published results (for-ai/portability) as portbench cells.

The study kept, per device VM, up to three timing files (``{"file.py:test": {"operations":
[seconds, ...], "test_time": s}}``) and, for some VMs, one pytest-json report with each
sub-test's outcome. Each device becomes one cell under profile ``study``: one record per
sub-test (a study "case"), its outcome from the VM's report, its timing the mean of every
timed operation over the runs. Nothing is invented where the study kept nothing:

- a device with no report (A100, TPU v2, the CPU runs of TensorFlow and JAX) gets records
  whose outcome is unknown (``skip``, ``study_outcome: unrecorded``): its functions count as
  untested, and its timings still feed the latency tables;
- a report that is a byte copy of another device's (JAX's TPU report is the T4 one) is not
  used for outcomes, and the cell says so;
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
import importlib.util
import json
import re
import statistics
import tarfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import ResultsError
from ..paths import project_root, runners_dir, state_dir
from ..rules import load_rules

__all__ = [
    "SOURCES",
    "StudySource",
    "default_archive",
    "import_study",
    "study_cells_dir",
]

COMMIT = "b220f30acd8c27b9389d5e5800328ca825e7ec9e"
REPOSITORY = "for-ai/portability"
UNRECORDED = "the study kept no test report for this device: outcome unknown"

_DEVICE_SUFFIX = re.compile(r"_(cuda|xla|cpu)(?=_|$)")


def _not_cpu(key: str) -> bool:
    return "_cpu" not in key


def _cpu_only(key: str) -> bool:
    return "_cpu" in key


def _every(key: str) -> bool:
    return True


@dataclass(frozen=True)
class StudySource:
    """One study device: where its timings and report live, and which sub-tests are its own."""

    framework: str
    accelerator: str
    hardware: str
    timings: str  # path pattern with {n} for the run number
    report: str | None
    select: Callable[[str], bool] = _every
    python: str = "3.10"
    note: str = ""


# Paths as in the study's repository. PyTorch's device-generic tests run the CPU and the
# accelerator variant in the same process (test_x_cpu, test_x_cuda / test_x_xla), so the CPU
# cell of PyTorch is the `_cpu` half of the T4 VM's files, as the study's own plots split it.
SOURCES: tuple[StudySource, ...] = (
    StudySource(
        "torch",
        "gpu-t4",
        "NVIDIA Tesla T4 (study's T4 VM)",
        "pytorch_timings/t4_vm/gpu_{n}.json",
        "pytorch_timings/t4_vm/test_failure_report.json",
        _not_cpu,
    ),
    StudySource(
        "torch",
        "cpu",
        "CPU of the study's T4 VM",
        "pytorch_timings/t4_vm/gpu_{n}.json",
        "pytorch_timings/t4_vm/test_failure_report.json",
        _cpu_only,
    ),
    StudySource(
        "torch",
        "gpu-a100",
        "NVIDIA A100 (study's A100 VM)",
        "pytorch_timings/a100_vm/gpu_{n}.json",
        None,
        _not_cpu,
    ),
    StudySource(
        "torch",
        "tpu-v3",
        "TPU v3-8 (study's TPU VM)",
        "pytorch_timings/tpu_vm/tpu_{n}.json",
        "pytorch_timings/tpu_vm/test_failure_report.json",
        _not_cpu,
        "3.8",
    ),
    StudySource(
        "torch",
        "tpu-v2",
        "TPU v2-8 (study's TPU v2 VM)",
        "pytorch_timings/tpu_v2/tpu_{n}.json",
        None,
        _not_cpu,
        "3.8",
    ),
    StudySource(
        "tensorflow",
        "gpu-t4",
        "NVIDIA Tesla T4 (study's T4 VM)",
        "tensorflow_timings/t4_vm/gpu/gpu_{n}.json",
        "tensorflow_timings/t4_vm/test_failure_report.json",
    ),
    StudySource(
        "tensorflow",
        "cpu",
        "CPU of the study's T4 VM",
        "tensorflow_timings/t4_vm/cpu/cpu_{n}.json",
        None,
    ),
    StudySource(
        "tensorflow",
        "gpu-a100",
        "NVIDIA A100 (study's A100 VM)",
        "tensorflow_timings/a100_vm/gpu_{n}.json",
        None,
    ),
    StudySource(
        "tensorflow",
        "tpu-v3",
        "TPU v3-8 (study's TPU VM)",
        "tensorflow_timings/tpu_vm/tpu/tpu_{n}.json",
        "tensorflow_timings/tpu_vm/test_failure_report.json",
        python="3.8",
    ),
    StudySource(
        "tensorflow",
        "tpu-v2",
        "TPU v2-8 (study's TPU v2 VM)",
        "tensorflow_timings/tpu_v2/tpu_{n}.json",
        None,
        python="3.8",
    ),
    StudySource(
        "jax",
        "gpu-t4",
        "NVIDIA Tesla T4 (study's T4 VM)",
        "jax_timings/t4_vm/gpu/gpu_{n}.json",
        "jax_timings/t4_vm/test_failure_report.json",
    ),
    StudySource(
        "jax",
        "cpu",
        "CPU of the study's T4 VM",
        "jax_timings/t4_vm/cpu/cpu_{n}.json",
        None,
    ),
    StudySource(
        "jax",
        "gpu-a100",
        "NVIDIA A100 (study's A100 VM)",
        "jax_timings/a100_vm/gpu_{n}.json",
        None,
    ),
    StudySource(
        "jax",
        "tpu-v3",
        "TPU v3-8 (study's TPU VM)",
        "jax_timings/tpu_vm/tpu/tpu_{n}.json",
        "jax_timings/tpu_vm/test_failure_report.json",
        python="3.8",
    ),
    StudySource(
        "jax",
        "tpu-v2",
        "TPU v2-8 (study's TPU v2 VM)",
        "jax_timings/tpu_v2_vm/tpu/tpu_{n}.json",
        None,
        python="3.8",
    ),
)

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


def study_cells_dir(archive: Path) -> Path:
    """Where the cells imported from ``archive`` are cached (keyed by its content)."""
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:12]
    return state_dir() / "study" / digest


class _Files:
    """The study's files from a directory or an archive, by repository-relative path."""

    def __init__(self, source: Path) -> None:
        if not source.exists():
            raise ResultsError(
                f"{source} does not exist; pass the study's repository (a directory or an "
                f"archive of github.com/{REPOSITORY})"
            )
        self._data: dict[str, bytes] = {}
        if source.is_dir():
            for path in source.rglob("*.json"):
                self._add(str(path.relative_to(source)), path.read_bytes())
        else:
            try:
                with tarfile.open(source) as tar:
                    for member in tar.getmembers():
                        if member.isfile() and member.name.endswith(".json"):
                            handle = tar.extractfile(member)
                            if handle is not None:
                                self._add(member.name, handle.read())
            except (tarfile.TarError, OSError) as exc:
                raise ResultsError(
                    f"{source} is not a readable tar archive ({exc}); pass the study's "
                    "repository as a directory or a .tar/.tar.gz/.tar.xz archive"
                ) from None
        if not any(p.startswith(("pytorch_timings/", "jax_timings/")) for p in self._data):
            raise ResultsError(
                f"{source} holds none of the study's *_timings folders; pass a checkout or "
                f"archive of github.com/{REPOSITORY}"
            )

    def _add(self, name: str, data: bytes) -> None:
        # GitHub archives put everything under one top folder: keep paths from *_timings on.
        parts = name.split("/")
        for i, part in enumerate(parts):
            if part.endswith("_timings"):
                self._data["/".join(parts[i:])] = data
                return

    def get(self, path: str) -> bytes | None:
        return self._data.get(path)

    def paths(self) -> list[str]:
        return sorted(self._data)


def _node_key(nodeid: str) -> str:
    # "src/pytorch_tests_reduced/cat_test.py::TestCat::test_cat_cuda" -> "cat_test.py:test_cat_cuda"
    path, _, rest = nodeid.partition("::")
    return f"{path.rsplit('/', 1)[-1]}:{rest.rsplit('::', 1)[-1]}"


def _load_classifier() -> ModuleType:
    # The runner's own matcher, so imported failures are categorized by exactly the rules
    # that categorize portbench's (the runner package is stdlib-only and not installed).
    spec = importlib.util.spec_from_file_location(
        "_portbench_runner_classify", runners_dir() / "portbench_runner" / "classify.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _study_functions(framework: str) -> list[dict[str, str]]:
    path = project_root() / "paper" / "functions.csv"
    with open(path, newline="", encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle) if r["framework"] == framework]


def _failure(test: dict[str, Any]) -> tuple[str, list[str], str]:
    """(stage, exception type names, message) of a failed pytest-json test."""
    for stage in ("setup", "call", "teardown"):
        phase = test.get(stage) or {}
        if phase.get("outcome") == "failed":
            crash = phase.get("crash") or {}
            message = str(crash.get("message") or phase.get("longrepr") or "")
            head, sep, _ = message.partition(": ")
            names = [head.rsplit(".", 1)[-1]] if sep and re.fullmatch(r"[\w.]+", head) else []
            return ("setup" if stage == "setup" else "call"), names, message
    return "call", [], ""


def _skip_reason(test: dict[str, Any]) -> str:
    for stage in ("setup", "call"):
        longrepr = (test.get(stage) or {}).get("longrepr")
        if longrepr:
            return str(longrepr)[-300:]
    return "skipped by the study's test"


def _timing(runs: list[list[float]], test_times: list[float]) -> dict[str, Any] | None:
    ops = [op for run in runs for op in run]
    if not ops:
        return None
    ms = sorted(op * 1000 for op in ops)
    quartiles = statistics.quantiles(ms, n=4) if len(ms) > 1 else [ms[0]] * 3
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
            "per_run_mean_ms": [statistics.fmean(r) * 1000 for r in runs if r],
            "test_time_s": test_times,
        },
    }


def _report_outcomes(
    files: _Files, source: StudySource, copies: dict[str, str]
) -> tuple[dict[str, dict[str, Any]] | None, str]:
    if source.report is None:
        return None, "no test report"
    data = files.get(source.report)
    if data is None:
        return None, f"{source.report} missing from the input"
    digest = hashlib.sha256(data).hexdigest()
    if digest in copies and copies[digest] != source.report:
        return None, f"{source.report} is a byte copy of {copies[digest]}: not used for outcomes"
    copies.setdefault(digest, source.report)
    report = json.loads(data)
    return {_node_key(t["nodeid"]): t for t in report.get("tests", [])}, source.report


def _records(
    source: StudySource,
    files: _Files,
    tests: dict[str, dict[str, Any]] | None,
    rules: list[dict[str, Any]],
    classifier: ModuleType,
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    cell = f"{source.framework}/{source.accelerator}/study"
    rows = {r["study_test_file"]: r for r in _study_functions(source.framework)}
    runs: dict[str, list[list[float]]] = {}
    test_times: dict[str, list[float]] = {}
    used: list[str] = []
    for n in (1, 2, 3):
        path = source.timings.format(n=n)
        data = files.get(path)
        if data is None:
            continue
        used.append(path)
        for key, value in json.loads(data).items():
            if source.select(key):
                runs.setdefault(key, []).append([float(x) for x in value.get("operations") or []])
                if value.get("test_time") is not None:
                    test_times.setdefault(key, []).append(float(value["test_time"]))
    keys = set(runs)
    if tests is not None:
        keys |= {k for k in tests if source.select(k) and k.split(":")[0] in rows}
    records = []
    extra: list[str] = []
    for key in sorted(keys):
        test_file, _, subtest = key.partition(":")
        row = rows.get(test_file)
        if row is None:
            # A test file outside the study's function list (the TensorFlow CPU run has one):
            # not a sampled function, so not part of the cell.
            extra.append(key)
            continue
        function = row["function"]
        name = _DEVICE_SUFFIX.sub("", subtest)
        record: dict[str, Any] = {
            "schema": 1,
            "kind": "study",
            "cell": cell,
            "framework": source.framework,
            "accelerator": source.accelerator,
            "profile": "study",
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
            "timing": _timing(runs.get(key, []), test_times.get(key, [])),
        }
        if tests is not None:
            test = tests.get(key)
            outcome = (test or {}).get("outcome")
            record["study_outcome"] = outcome or "absent from report"
            if outcome in ("passed", "xpassed"):
                record.update(outcome="pass", reason=None)
            elif outcome == "failed":
                stage, names, message = _failure(test or {})
                category, rule = classifier.classify_names(names, message, stage, rules)
                record.update(
                    outcome="fail",
                    reason=None,
                    stage=stage,
                    category=category,
                    rule=rule,
                    error={"type": names[0] if names else None, "message": message[:4000]},
                )
            elif outcome in ("skipped", "xfailed"):
                record.update(reason=_skip_reason(test or {}))
            elif outcome == "error":
                _, names, message = _failure(test or {})
                record.update(
                    outcome="error",
                    reason="the study's test errored outside the function (pytest error)",
                    error={"type": names[0] if names else None, "message": message[:4000]},
                )
            else:
                record["reason"] = "timed, but absent from this device's test report"
        records.append(record)
    return records, used, extra


def _plan(source: StudySource) -> dict[str, Any]:
    return {
        "schema": 1,
        "kind": "plan",
        "cell": f"{source.framework}/{source.accelerator}/study",
        "framework": source.framework,
        "accelerator": source.accelerator,
        "profile": "study",
        "backend": "study",
        "functions": [
            {
                "function": r["function"],
                "study_test_file": r["study_test_file"],
                "stratum": r["stratum"],
                "frequency": int(r["frequency"]) if r["frequency"].isdigit() else None,
                "paper_label": r["paper_label"],
                "in_paper_latency_table": r["in_paper_latency_table"] == "yes",
            }
            for r in _study_functions(source.framework)
        ],
    }


def _write_cell(out: Path, plan: dict[str, Any], env: dict[str, Any], records: list[Any]) -> Path:
    cell_dir = out / f"{plan['framework']}-{plan['accelerator']}-study"
    cell_dir.mkdir(parents=True, exist_ok=True)
    (cell_dir / "plan.json").write_text(json.dumps(plan, indent=1) + "\n", encoding="utf-8")
    (cell_dir / "env.json").write_text(json.dumps(env, indent=1) + "\n", encoding="utf-8")
    (cell_dir / "results.jsonl").write_text(
        "".join(json.dumps(r, sort_keys=True) + "\n" for r in records), encoding="utf-8"
    )
    session = {
        "schema": 1,
        "kind": "session",
        "cell": plan["cell"],
        "index": 0,
        "status": "complete",
        "reason": "imported from the study's published results",
        "records_written": len(records),
    }
    (cell_dir / "sessions.jsonl").write_text(json.dumps(session) + "\n", encoding="utf-8")
    return cell_dir


def _iter_sources(frameworks: list[str] | None) -> Iterator[StudySource]:
    for source in SOURCES:
        if frameworks is None or source.framework in frameworks:
            yield source


def import_study(source_path: Path, out: Path, frameworks: list[str] | None = None) -> list[Path]:
    """Write one cell directory per study device under ``out``; return them."""
    files = _Files(source_path)
    classifier = _load_classifier()
    copies: dict[str, str] = {}
    written = []
    imported: set[str] = set()
    for source in _iter_sources(frameworks):
        tests, report_note = _report_outcomes(files, source, copies)
        records, used, extra = _records(
            source, files, tests, load_rules(source.framework), classifier
        )
        if not used:
            continue
        imported.update(used)
        if source.report and tests is not None:
            imported.add(source.report)
        env = {
            "schema": 1,
            "kind": "env",
            "cell": f"{source.framework}/{source.accelerator}/study",
            "backend": "study",
            "framework_version": VERSIONS[source.framework],
            "python": {"version": source.python},
            "device": {"device_name": source.hardware},
            "started_at": None,
            "study": {
                "repository": REPOSITORY,
                "commit": COMMIT,
                "timings": used,
                "runs": len(used),
                "report": source.report if tests is not None else None,
                "report_note": report_note,
                "subtests_outside_function_list": extra,
                "timing_note": (
                    "one timed call per operation, compilation included, sync as the study's "
                    "harness did it: latencies are the study's means, not warm medians"
                ),
            },
        }
        written.append(_write_cell(out, _plan(source), env, records))
    skipped = [p for p in files.paths() if p not in imported]
    (out / "NOT-IMPORTED.txt").write_text(
        "Study files present in the input but not mapped to a device cell "
        "(older runs, soft-placement experiments, alternate reports):\n"
        + "".join(f"{p}\n" for p in skipped),
        encoding="utf-8",
    )
    return written
