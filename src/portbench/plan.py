"""Compiling a cell (manifest + profile + accelerator + settings) into the runner's JSON plan.

Plan schema history (keep in step with runners/portbench_runner/plan.py):
  1 - first version.
  2 - ``file_cases`` per function (every case its file registers, as the host reads it, so
      the worker can refuse a file that registers cases at run time); ``cases_per_worker``
      (0: a worker runs cases until it dies; 1: every case in a fresh worker process).
  3 - ``census`` (census cells only: the database, its version, the listing's hash, the
      dtypes tried, timing on or off, samples per case, folders the worker adds to its
      path); census functions carry a ``census`` entry in place of a case file.
"""

from __future__ import annotations

import json
import os
import shlex
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import __version__
from .accelerators import Accelerator
from .errors import UsageError
from .manifest import Manifest

__all__ = [
    "PLAN_SCHEMA",
    "CellSpec",
    "case_seed",
    "compile_plan",
    "plan_case_count",
    "plan_document",
    "plan_from_case_files",
    "write_plan",
]

PLAN_SCHEMA = 3
DEFAULT_SEED = 20230101
DEFAULT_CASE_TIMEOUT_S = 900.0  # the study's per-test timeout (15 min)


@dataclass(frozen=True)
class CellSpec:
    framework: str
    accelerator: Accelerator
    profile: str
    backend: str

    @property
    def cell_id(self) -> str:
        return f"{self.framework}/{self.accelerator.id}/{self.profile}"

    @property
    def dir_name(self) -> str:
        return f"{self.framework}-{self.accelerator.id}-{self.profile}"


@dataclass(frozen=True)
class PlanOptions:
    functions: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    seed: int = DEFAULT_SEED
    case_timeout_s: float = DEFAULT_CASE_TIMEOUT_S
    worker_start_s: float = 600.0
    grace_s: float = 5.0
    max_restarts: int = 3
    cases_per_worker: int = 0
    timing: dict[str, float] = field(default_factory=dict)
    image: dict[str, Any] | None = None


def case_seed(seed: int, case_id: str) -> int:
    """A stable per-case seed: the same case gets the same inputs in every cell and run."""
    return zlib.crc32(f"{seed}:{case_id}".encode()) & 0x7FFFFFFF


def compile_plan(
    cell: CellSpec,
    manifest: Manifest,
    rules: list[dict[str, Any]],
    options: PlanOptions,
    manifest_root: str | None = None,
) -> dict[str, Any]:
    """The plan for one cell; ``manifest_root`` is the manifest folder as the cell sees it."""
    wanted_functions = set(options.functions)
    known = {f.function for f in manifest.functions}
    unknown = sorted(wanted_functions - known)
    if unknown:
        raise UsageError(
            f"{', '.join(unknown)} not in the {manifest.framework} manifest; "
            "`portbench list --framework F` shows its functions"
        )
    all_ids = set(manifest.case_ids())
    missing = sorted(set(options.cases) - all_ids)
    if missing:
        raise UsageError(
            f"case {missing[0]!r} is not in the {manifest.framework} manifest; "
            "`portbench list` shows the case ids"
        )
    functions = []
    for entry in manifest.functions:
        if wanted_functions and entry.function not in wanted_functions:
            continue
        names = [c for c in entry.cases if not options.cases or entry.case_id(c) in options.cases]
        if options.cases and not names:
            continue
        functions.append(
            {
                "function": entry.function,
                "study_test_file": entry.study_test_file,
                "stratum": entry.stratum,
                "frequency": entry.frequency,
                "case_file": entry.case_file,
                "case_file_sha256": entry.case_file_sha256,
                "untested_reason": entry.untested.get(cell.profile),
                "file_cases": list(entry.cases),
                "cases": [
                    {
                        "id": entry.case_id(name),
                        "name": name,
                        "seed": case_seed(options.seed, entry.case_id(name)),
                        "timeout_s": entry.timeout_s or options.case_timeout_s,
                    }
                    for name in names
                ],
            }
        )
    if not functions or not any(f["cases"] for f in functions):
        raise UsageError(
            f"the selection holds no case of the {manifest.framework} manifest; "
            "`portbench list` shows its functions and case ids"
        )
    prefix = [
        "portbench",
        "bench",
        "--framework",
        cell.framework,
        "--accelerator",
        cell.accelerator.id,
        "--profile",
        cell.profile,
        "--backend",
        cell.backend,
    ]
    return plan_document(
        cell=cell.cell_id,
        framework=cell.framework,
        profile=cell.profile,
        backend=cell.backend,
        accelerator=cell.accelerator.to_plan(),
        manifest_root=manifest_root or str(manifest.root),
        functions=functions,
        rules=rules,
        options=options,
        rerun_prefix=shlex.join(prefix),
    )


def plan_document(
    *,
    cell: str,
    framework: str,
    profile: str,
    backend: str,
    accelerator: dict[str, Any],
    manifest_root: str,
    functions: list[dict[str, Any]],
    rules: list[dict[str, Any]],
    options: PlanOptions,
    rerun_prefix: str,
) -> dict[str, Any]:
    """The plan as the runner reads it; the one place its fields are written."""
    return {
        "schema": PLAN_SCHEMA,
        "kind": "plan",
        "cell": cell,
        "framework": framework,
        "profile": profile,
        "backend": backend,
        "accelerator": accelerator,
        "image": options.image,
        "manifest_root": manifest_root,
        "functions": functions,
        "rules": rules,
        "timing": dict(options.timing),
        "timeouts": {
            "case_s": options.case_timeout_s,
            "worker_start_s": options.worker_start_s,
            "grace_s": options.grace_s,
        },
        "max_restarts": options.max_restarts,
        "cases_per_worker": options.cases_per_worker,
        "seed": options.seed,
        "rerun_prefix": rerun_prefix,
        "portbench_version": __version__,
    }


def plan_case_count(plan: dict[str, Any]) -> int:
    return sum(len(f["cases"]) for f in plan["functions"])


def plan_from_case_files(
    root: Path,
    case_files: dict[str, str],
    framework: str = "python",
    options: PlanOptions | None = None,
    case_timeouts: dict[str, float] | None = None,
) -> dict[str, Any]:
    """A host-profile CPU plan over case files written under ``root/cases`` from source text,
    one function ``demo.<stem>`` per file: what tests and benchmarks run, compiled the way
    a manifest's plan is (case names read with ``ast``, as the host reads them)."""
    from .manifest import read_case_names

    options = options or PlanOptions()
    cases_dir = root / "cases"
    cases_dir.mkdir(parents=True, exist_ok=True)
    functions = []
    for stem, source in case_files.items():
        path = cases_dir / f"{stem}.py"
        path.write_text(source)
        names = read_case_names(path)
        functions.append(
            {
                "function": f"demo.{stem}",
                "study_test_file": f"{stem}_test.py",
                "stratum": "1",
                "frequency": 1,
                "case_file": f"cases/{stem}.py",
                "case_file_sha256": None,
                "untested_reason": None,
                "file_cases": list(names),
                "cases": [
                    {
                        "id": f"demo.{stem}::{name}",
                        "name": name,
                        "seed": index,
                        "timeout_s": (case_timeouts or {}).get(name, options.case_timeout_s),
                    }
                    for index, name in enumerate(names)
                ],
            }
        )
    return plan_document(
        cell=f"{framework}/cpu/host",
        framework=framework,
        profile="host",
        backend="host",
        accelerator={"id": "cpu", "flavor": "cpu", "device_match": "", "generic": "cpu"},
        manifest_root=str(root),
        functions=functions,
        rules=[],
        options=options,
        rerun_prefix=f"portbench bench --framework {framework} --accelerator cpu --profile host",
    )


#: What every plan holds, and of which JSON type (the runner checks the same in plan.py).
_REQUIRED: dict[str, type] = {
    "schema": int,
    "cell": str,
    "framework": str,
    "profile": str,
    "backend": str,
    "accelerator": dict,
    "manifest_root": str,
    "functions": list,
    "rules": list,
    "timeouts": dict,
    "max_restarts": int,
    "rerun_prefix": str,
}


def read_plan(path: Path) -> dict[str, Any]:
    """A plan file, checked: a missing, unreadable, newer or malformed plan is one sentence."""
    from .errors import PlanError
    from .results import read_document

    plan = read_document(path, "plan", schema_max=PLAN_SCHEMA)
    if plan is None:
        raise PlanError(f"{path}: cannot read the plan (missing, not JSON, or a link)")
    for key, kind in _REQUIRED.items():
        if not isinstance(plan.get(key), kind):
            raise PlanError(
                f"{path}: the plan lacks '{key}' (a JSON {kind.__name__}); compile it anew with "
                "portbench bench"
            )
    for function in plan["functions"]:
        cases = function.get("cases") if isinstance(function, dict) else None
        if not isinstance(cases, list) or not all(
            isinstance(c, dict) and isinstance(c.get("id"), str) for c in cases
        ):
            raise PlanError(f"{path}: a function entry has no list of cases with ids")
    return plan


def write_plan(plan: dict[str, Any], path: Path) -> None:
    """Write the plan once (exclusive create): a cell directory keeps the plan it ran."""
    with open(path, "x", encoding="utf-8") as handle:
        json.dump(plan, handle, indent=2, sort_keys=True)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
