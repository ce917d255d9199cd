"""Where each of the study's devices keeps its timings and test reports, and which report
stands for the device.

The study (for-ai/portability @ b220f30) ran some devices more than once and kept every
pytest-json report it made: TensorFlow's T4 and TPU VMs have an older report at the VM's top
folder and a newer one beside the timings (``t4_vm/gpu/``, ``tpu_vm/tpu/``), and a third
report from a run with TensorFlow's soft device placement switched on (``soft_placement/``).
A device's outcome is the newest report it ran with the study's standard placement; the
soft-placement runs are a different experiment and become cells of their own (profile
``study-soft``), never the device's outcome.
"""

from __future__ import annotations

import json
import re
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from portbench_runner.contract import member

from ..errors import ResultsError

__all__ = [
    "REPOSITORY",
    "SOURCES",
    "STUDY_PROFILES",
    "ChosenReport",
    "StudyFiles",
    "StudySource",
    "choose_report",
    "is_study_profile",
    "node_key",
    "report_tests",
    "unused_because",
]

REPOSITORY = "for-ai/portability"
#: Profiles of imported study cells: the study's standard runs and its soft-placement runs.
STUDY_PROFILES = ("study", "study-soft")


def is_study_profile(profile: str) -> bool:
    return profile in STUDY_PROFILES


def _not_cpu(key: str) -> bool:
    return "_cpu" not in key


def _cpu_only(key: str) -> bool:
    return "_cpu" in key


def _every(key: str) -> bool:
    return True


@dataclass(frozen=True)
class StudySource:
    """One study device: where its timings and reports live, and which sub-tests are its own."""

    framework: str
    accelerator: str
    hardware: str
    timings: str
    """Path pattern with {n} for the run number (1-3)."""
    reports: tuple[str, ...] = ()
    """Every report the study made for this device with its standard placement."""
    select: Callable[[str], bool] = _every
    python: str = "3.10"
    profile: str = "study"
    note: str = ""

    @property
    def cell(self) -> str:
        return f"{self.framework}/{self.accelerator}/{self.profile}"


_T4 = "NVIDIA Tesla T4 (study's T4 VM)"
_A100 = "NVIDIA A100 (study's A100 VM)"
_V3 = "TPU v3-8 (study's TPU VM)"
_V2 = "TPU v2-8 (study's TPU v2 VM)"
_CPU = "CPU of the study's T4 VM"

# Paths as in the study's repository. PyTorch's device-generic tests run the CPU and the
# accelerator variant in the same process (test_x_cpu, test_x_cuda / test_x_xla), so the CPU
# cell of PyTorch is the `_cpu` half of the T4 VM's files, as the study's own plots split it.
SOURCES: tuple[StudySource, ...] = (
    StudySource(
        "torch",
        "gpu-t4",
        _T4,
        "pytorch_timings/t4_vm/gpu_{n}.json",
        ("pytorch_timings/t4_vm/test_failure_report.json",),
        _not_cpu,
    ),
    StudySource(
        "torch",
        "cpu",
        _CPU,
        "pytorch_timings/t4_vm/gpu_{n}.json",
        ("pytorch_timings/t4_vm/test_failure_report.json",),
        _cpu_only,
    ),
    StudySource("torch", "gpu-a100", _A100, "pytorch_timings/a100_vm/gpu_{n}.json", (), _not_cpu),
    StudySource(
        "torch",
        "tpu-v3",
        _V3,
        "pytorch_timings/tpu_vm/tpu_{n}.json",
        ("pytorch_timings/tpu_vm/test_failure_report.json",),
        _not_cpu,
        "3.8",
    ),
    StudySource("torch", "tpu-v2", _V2, "pytorch_timings/tpu_v2/tpu_{n}.json", (), _not_cpu, "3.8"),
    StudySource(
        "tensorflow",
        "gpu-t4",
        _T4,
        "tensorflow_timings/t4_vm/gpu/gpu_{n}.json",
        (
            "tensorflow_timings/t4_vm/test_failure_report.json",
            "tensorflow_timings/t4_vm/gpu/test_failure_report.json",
        ),
    ),
    StudySource("tensorflow", "cpu", _CPU, "tensorflow_timings/t4_vm/cpu/cpu_{n}.json"),
    StudySource("tensorflow", "gpu-a100", _A100, "tensorflow_timings/a100_vm/gpu_{n}.json"),
    StudySource(
        "tensorflow",
        "tpu-v3",
        _V3,
        "tensorflow_timings/tpu_vm/tpu/tpu_{n}.json",
        (
            "tensorflow_timings/tpu_vm/test_failure_report.json",
            "tensorflow_timings/tpu_vm/tpu/test_failure_report.json",
        ),
        python="3.8",
    ),
    StudySource(
        "tensorflow", "tpu-v2", _V2, "tensorflow_timings/tpu_v2/tpu_{n}.json", python="3.8"
    ),
    StudySource(
        "tensorflow",
        "gpu-t4",
        _T4 + ", soft device placement on",
        "tensorflow_timings/soft_placement/gpu/gpu_{n}.json",
        ("tensorflow_timings/soft_placement/gpu/test_failure_report.json",),
        profile="study-soft",
        note="soft placement lets TensorFlow run an op the device has no kernel for on the CPU",
    ),
    StudySource(
        "tensorflow",
        "tpu-v3",
        _V3 + ", soft device placement on",
        "tensorflow_timings/soft_placement/tpu/tpu_{n}.json",
        python="3.8",
        profile="study-soft",
        note="soft placement lets TensorFlow run an op the device has no kernel for on the CPU",
    ),
    StudySource(
        "jax",
        "gpu-t4",
        _T4,
        "jax_timings/t4_vm/gpu/gpu_{n}.json",
        (
            "jax_timings/t4_vm/test_failure_report.json",
            "jax_timings/t4_vm/gpu/test_failure_report.json",
        ),
    ),
    StudySource("jax", "cpu", _CPU, "jax_timings/t4_vm/cpu/cpu_{n}.json"),
    StudySource("jax", "gpu-a100", _A100, "jax_timings/a100_vm/gpu_{n}.json"),
    StudySource(
        "jax",
        "tpu-v3",
        _V3,
        "jax_timings/tpu_vm/tpu/tpu_{n}.json",
        ("jax_timings/tpu_vm/test_failure_report.json",),
        python="3.8",
    ),
    StudySource("jax", "tpu-v2", _V2, "jax_timings/tpu_v2_vm/tpu/tpu_{n}.json", python="3.8"),
)

#: Why a file of the study's folders is read by no cell (NOT-IMPORTED.txt), by path prefix:
#: each is a run outside the device folders whose timings the study's Tables 5-7 reproduce.
UNUSED_BECAUSE = (
    ("pytorch_timings/gpu_cpu_vm", "a single run outside the device folders (t4_vm/ is used)"),
    ("pytorch_timings/tpu_cpu_vm", "a single run outside the device folders (tpu_vm/ is used)"),
    ("tensorflow_timings/tpu_vm/cpu/", "the TPU VM's CPU: the CPU cell is the T4 VM's"),
    ("jax_timings/tpu_vm/cpu/", "the TPU VM's CPU: the CPU cell is the T4 VM's"),
    (
        "tensorflow_timings/tpu_vm_soft/",
        "soft placement on the TPU, a second run without a report (soft_placement/tpu/ is used)",
    ),
    ("tensorflow_timings/", "a run outside the device folders (t4_vm/, tpu_vm/ are used)"),
)


def unused_because(path: str) -> str:
    for prefix, why in UNUSED_BECAUSE:
        if path.startswith(prefix):
            return why
    return "not mapped to a device of the study"


class StudyFiles:
    """The study's JSON files from a directory or an archive, by repository-relative path."""

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

    def json(self, path: str) -> Any:
        data = self._data.get(path)
        if data is None:
            return None
        try:
            return json.loads(data)
        except ValueError as exc:
            raise ResultsError(
                f"{path} in the study's files is not JSON ({exc}); pass an unmodified "
                f"checkout or archive of github.com/{REPOSITORY}"
            ) from None

    def paths(self) -> list[str]:
        return sorted(self._data)


@dataclass(frozen=True)
class ChosenReport:
    """The report that gives a device its outcomes, and why the others were not used."""

    path: str | None
    tests: dict[str, tuple[str | None, dict[str, object]]] | None
    """Record key -> (the key of its entry in the timing files, or None; the report's test)."""
    note: str
    passed_over: dict[str, str] = field(default_factory=dict)


_PYTHON = re.compile(r"^(\d+\.\d+)")


def _report_python(report: dict[str, object]) -> str:
    found = _PYTHON.match(str(member(report, "environment").get("Python") or ""))
    return found.group(1) if found else "?"


def node_key(nodeid: str) -> str:
    """ "src/x_tests_reduced/cat_test.py::TestCat::test_cat_cuda" -> "cat_test.py:test_cat_cuda"."""
    path, _, rest = nodeid.partition("::")
    return f"{path.rsplit('/', 1)[-1]}:{rest.rsplit('::', 1)[-1]}"


def choose_report(files: StudyFiles, source: StudySource) -> ChosenReport:
    """The newest usable report among the device's: by the time pytest-json-report wrote in
    it (``created``); a report whose Python is not the device VM's is another VM's copy
    (JAX's TPU report is byte for byte its T4 report, made under the T4 VM's Python 3.10)."""
    if not source.reports:
        return ChosenReport(None, None, "the study kept no test report for this device")
    candidates: list[tuple[float, str, dict[str, object]]] = []
    passed_over: dict[str, str] = {}
    for path in source.reports:
        report = files.json(path)
        if report is None:
            passed_over[path] = "missing from the input"
            continue
        python = _report_python(report)
        if python != source.python:
            passed_over[path] = (
                f"its environment names Python {python}, not this VM's {source.python}: "
                "another VM's report, not used for outcomes"
            )
            continue
        candidates.append((float(report.get("created") or 0.0), path, report))
    if not candidates:
        return ChosenReport(
            None, None, "; ".join(f"{p}: {why}" for p, why in passed_over.items()), passed_over
        )
    candidates.sort(key=lambda c: c[0])
    _, path, report = candidates[-1]
    newest = files.get(path)
    for _, older, _ in candidates[:-1]:
        same = files.get(older) == newest
        passed_over[older] = f"the same bytes as {path}" if same else f"older than {path}"
    return ChosenReport(
        path, report_tests(report), f"newest standard-placement report: {path}", passed_over
    )


def report_tests(report: dict[str, object]) -> dict[str, tuple[str | None, dict[str, object]]]:
    """Every test of a report by a key unique in it: ``file.py:test``, or, where two classes of
    one file hold a test of the same name (47 names in each TensorFlow report),
    ``file.py:Class.test`` for each of them. The timing files key both by ``file.py:test``
    alone, so their one entry is given to the last listed of them, the test that a join on
    that key keeps; the others have no timing."""
    grouped: dict[str, list[dict[str, object]]] = {}
    listed = report.get("tests")
    for test in listed if isinstance(listed, list) else []:
        if isinstance(test, dict):
            grouped.setdefault(node_key(str(test.get("nodeid"))), []).append(test)
    out: dict[str, tuple[str | None, dict[str, object]]] = {}
    for key, tests in grouped.items():
        if len(tests) == 1:
            out[key] = (key, tests[0])
            continue
        test_file, _, name = key.partition(":")
        for index, test in enumerate(tests):
            parts = str(test.get("nodeid")).split("::")
            owner = parts[-2] if len(parts) > 2 else f"#{index + 1}"
            timing_key = key if index == len(tests) - 1 else None
            out[f"{test_file}:{owner}.{name}"] = (timing_key, test)
    return out
