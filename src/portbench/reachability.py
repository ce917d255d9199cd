"""Reachability of the study's recorded failures: each one has a portbench case, or a reason.

For every sub-test that a report of the study (pytest-json, T4 and TPU v3 VMs) records as
failing, ``manifests/<framework>/reachability.toml`` names the portbench cases that exercise
the same function with the same dtype and path, or says in words why none does (a bug of
the study's harness, an API that no longer exists, a path portbench does not take). A
failure with neither is ``missing``; an entry that matches no recorded failure is stale.
Both make ``tests/unit/manifests/test_reachability.py`` fail.

The table's entries match failures by a regular expression searched in the sub-test's key,
``<test file>::<class>::<test>``, optionally only in some devices' reports::

    [[failure]]
    match = 'smoothl1loss_test\\.py::.*::test_smooth_l1_loss_bfloat16_cuda$'
    on = ["gpu-t4"]
    cases = ["torch.nn.SmoothL1Loss::bfloat16-mean-eager"]

``python -m portbench.reachability [--markdown FILE]`` prints the counts per framework.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from portbench_runner.contract import DOCUMENT, read_json

from .errors import ManifestError
from .manifest import FRAMEWORKS, load_manifest
from .paths import manifests_dir
from .report.study import _failure, default_archive
from .report.study_sources import SOURCES, StudyFiles, StudySource

__all__ = [
    "Entry",
    "Failure",
    "Resolution",
    "load_table",
    "recorded_failures",
    "resolve",
]

TABLE_SCHEMA = 1


@dataclass(frozen=True)
class Failure:
    """One sub-test that a study report records as failing."""

    framework: str
    accelerator: str
    key: str  # "<test file>::<class>::<test>"
    stage: str
    message: str


@dataclass(frozen=True)
class Entry:
    match: str
    on: tuple[str, ...]
    cases: tuple[str, ...]
    reason: str
    index: int

    def matches(self, failure: Failure) -> bool:
        if self.on and failure.accelerator not in self.on:
            return False
        return re.search(self.match, failure.key) is not None


@dataclass
class Resolution:
    """Every recorded failure of one framework with the entry that accounts for it."""

    framework: str
    reached: list[tuple[Failure, Entry]] = field(default_factory=list)
    explained: list[tuple[Failure, Entry]] = field(default_factory=list)
    missing: list[Failure] = field(default_factory=list)
    stale: list[Entry] = field(default_factory=list)
    unknown_cases: list[tuple[Entry, str]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.reached) + len(self.explained) + len(self.missing)


def _key(nodeid: str) -> str:
    # "src/pytorch_tests_reduced/cat_test.py::TestCat::test_cat_cuda" -> "cat_test.py::TestCat::..."
    path, _, rest = nodeid.partition("::")
    return f"{path.rsplit('/', 1)[-1]}::{rest}"


def recorded_failures(archive: Path | None = None) -> list[Failure]:
    """Every failing sub-test of every standard-placement report the study made, each
    distinct report once (JAX's TPU report is a byte copy of its T4 one). Sub-tests of a report that the study's
    CPU cell takes (PyTorch's ``_cpu`` variants on the T4 VM) are the CPU's failures; on
    other VMs they stay the VM's (they failed there, for example under torch_xla)."""
    files = StudyFiles(archive or default_archive())
    seen_reports: set[bytes] = set()
    failures: list[Failure] = []
    for source in SOURCES:
        if source.accelerator == "cpu" or source.profile != "study":
            continue
        # Every report the study made for the device with its standard placement (a
        # failure any of them recorded is one the study saw), each distinct report once.
        for path in source.reports:
            data = files.get(path)
            if data is None or data in seen_reports:
                continue
            seen_reports.add(data)
            failures += _failures_of(data, source, path)
    return failures


def _failures_of(data: bytes, source: StudySource, path: str) -> list[Failure]:
    """The failing sub-tests of one report; a ``_cpu`` variant that the study's CPU cell
    takes from this report is the CPU's failure (on other VMs it stays the VM's)."""
    cpu = next(
        (
            s
            for s in SOURCES
            if s.accelerator == "cpu" and s.framework == source.framework and path in s.reports
        ),
        None,
    )
    failures: list[Failure] = []
    # The study's report is input from outside: read within bounds, its shape never trusted.
    report = read_json(data, DOCUMENT)
    listed = report.get("tests") if isinstance(report, dict) else None
    tests = [t for t in listed if isinstance(t, dict)] if isinstance(listed, list) else []
    for test in tests:
        found = _failure(test)
        if found is None:
            continue
        key = _key(str(test.get("nodeid", "")))
        name = key.rsplit("::", 1)[-1]
        accelerator = "cpu" if cpu is not None and cpu.select(name) else source.accelerator
        stage, _, message, _lines = found
        failures.append(Failure(source.framework, accelerator, key, stage, message[:300]))
    return failures


def load_table(framework: str, root: Path | None = None) -> list[Entry]:
    path = (root or manifests_dir()) / framework / "reachability.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not valid TOML ({exc})") from None
    if data.get("schema") != TABLE_SCHEMA or data.get("framework") != framework:
        raise ManifestError(f"{path}: needs schema = {TABLE_SCHEMA} and framework = {framework!r}")
    entries = []
    for index, raw in enumerate(data.get("failure", [])):
        where = f"{path}: entry {index + 1}"
        if not isinstance(raw, dict) or not isinstance(raw.get("match"), str):
            raise ManifestError(f"{where}: needs a 'match' regular expression")
        cases, reason = raw.get("cases", []), raw.get("reason", "")
        if bool(cases) == bool(reason):
            raise ManifestError(f"{where}: give either 'cases' or a 'reason', not both or neither")
        unknown = set(raw) - {"match", "on", "cases", "reason", "study"}
        if unknown:
            raise ManifestError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        try:
            re.compile(raw["match"])
        except re.error as exc:
            raise ManifestError(f"{where}: 'match' is not a regular expression ({exc})") from None
        entries.append(
            Entry(raw["match"], tuple(raw.get("on", ())), tuple(cases), str(reason), index + 1)
        )
    return entries


def resolve(
    framework: str,
    failures: Iterable[Failure],
    entries: list[Entry],
    case_ids: set[str],
) -> Resolution:
    result = Resolution(framework)
    used: set[int] = set()
    for failure in failures:
        if failure.framework != framework:
            continue
        entry = next((e for e in entries if e.matches(failure)), None)
        if entry is None:
            result.missing.append(failure)
            continue
        used.add(entry.index)
        (result.reached if entry.cases else result.explained).append((failure, entry))
    result.stale = [e for e in entries if e.index not in used]
    result.unknown_cases = [(e, c) for e in entries for c in e.cases if c not in case_ids]
    return result


def resolve_all(archive: Path | None = None) -> list[Resolution]:
    failures = recorded_failures(archive)
    return [
        resolve(fw, failures, load_table(fw), set(load_manifest(fw).case_ids()))
        for fw in FRAMEWORKS
    ]


def markdown(resolutions: list[Resolution]) -> str:
    lines = [
        "| framework | recorded failures | reached by a case | explained | missing | stale entries |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in resolutions:
        lines.append(
            f"| {r.framework} | {r.total} | {len(r.reached)} | {len(r.explained)} | "
            f"{len(r.missing)} | {len(r.stale)} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m portbench.reachability")
    parser.add_argument("--archive", type=Path, default=None)
    parser.add_argument("--missing", action="store_true", help="list failures without an entry")
    args = parser.parse_args(argv)
    resolutions = resolve_all(args.archive)
    sys.stdout.write(markdown(resolutions))
    for r in resolutions:
        if args.missing:
            for f in r.missing:
                print(f"missing {r.framework} {f.accelerator} {f.key} | {f.message[:100]}")
        for e in r.stale:
            print(f"stale {r.framework} entry {e.index}: {e.match}")
        for e, c in r.unknown_cases:
            print(f"unknown case {r.framework} entry {e.index}: {c}")
    bad = any(r.missing or r.stale or r.unknown_cases for r in resolutions)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
