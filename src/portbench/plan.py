"""Compiling a cell (manifest + profile + accelerator + settings) into the runner's JSON plan.

Plan schema history (keep in step with runners/portbench_runner/plan.py):
  1 - first version.
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

__all__ = ["PLAN_SCHEMA", "CellSpec", "case_seed", "compile_plan", "write_plan"]

PLAN_SCHEMA = 1
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
    return {
        "schema": PLAN_SCHEMA,
        "kind": "plan",
        "cell": cell.cell_id,
        "framework": cell.framework,
        "profile": cell.profile,
        "backend": cell.backend,
        "accelerator": cell.accelerator.to_plan(),
        "image": options.image,
        "manifest_root": manifest_root or str(manifest.root),
        "functions": functions,
        "rules": rules,
        "timing": dict(options.timing),
        "timeouts": {
            "case_s": options.case_timeout_s,
            "worker_start_s": options.worker_start_s,
            "grace_s": options.grace_s,
        },
        "max_restarts": options.max_restarts,
        "seed": options.seed,
        "rerun_prefix": shlex.join(prefix),
        "portbench_version": __version__,
    }


def write_plan(plan: dict[str, Any], path: Path) -> None:
    """Write the plan once (exclusive create): a cell directory keeps the plan it ran."""
    with open(path, "x", encoding="utf-8") as handle:
        json.dump(plan, handle, indent=2, sort_keys=True)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
