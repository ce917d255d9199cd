"""Compiling a cell (manifest + profile + accelerator + settings) into the runner's JSON plan.

Plan schema history (keep in step with runners/portbench_runner/plan.py):
  1 - first version.
  2 - ``file_cases`` per function (every case its file registers, as the host reads it, so
      the worker can refuse a file that registers cases at run time); ``cases_per_worker``
      (0: a worker runs cases until it dies; 1: every case in a fresh worker process);
      ``differential`` (optional, default false: each passing or failing case is run again
      on the framework's CPU in the same worker and compared; on by default off the CPU);
      ``cell_budget_s`` (optional: the cell's wall-time cap; the supervisor gives each case's
      warm timing a share of what is left, so a cell ends near it with thinner timings
      instead of running long; null or absent: no cap).
      ``fallback`` (optional, #20): ``mode`` "mark" (a case whose work ran partly on the host
      passes with a mark in its evidence) or "fail" (it fails as ``fallback``),
      ``soft_placement`` (TensorFlow's soft device placement, off by default) and
      ``lower_for`` (JAX: the platform the evidence probe lowers for, default the cell's).
      A plan without it means mark, soft placement off, the cell's own platform.
      Optional ``label`` (a string the user chose, ``--label``): the report names the run by
      it; absent when none was given, so plans without one read as before.
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
    "DEFAULT_CELL_BUDGET_S",
    "FALLBACK_MODES",
    "LOWERING_PLATFORMS",
    "PLAN_SCHEMA",
    "CellSpec",
    "FallbackOptions",
    "PlanOptions",
    "case_seed",
    "check_label",
    "compile_plan",
    "fallback_cli_args",
    "plan_case_count",
    "plan_document",
    "plan_from_case_files",
    "write_plan",
]

PLAN_SCHEMA = 3
DEFAULT_SEED = 20230101
DEFAULT_CASE_TIMEOUT_S = 900.0  # the study's per-test timeout (15 min)
MAX_LABEL = 80
#: A cell's wall-time cap: a CPU cell of the widened manifests stays under 10 minutes.
DEFAULT_CELL_BUDGET_S = 540.0


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

    def rerun_prefix(self, command: str = "bench", *extra: str) -> str:
        """The command line that reruns a case of this cell, less ``--case ID``."""
        return shlex.join(
            [
                "portbench",
                command,
                "--framework",
                self.framework,
                "--accelerator",
                self.accelerator.id,
                "--profile",
                self.profile,
                "--backend",
                self.backend,
                *extra,
            ]
        )


FALLBACK_MODES = ("mark", "fail")
#: Platforms JAX can lower a program for without having the hardware.
LOWERING_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


@dataclass(frozen=True)
class FallbackOptions:
    """What a cell does with work that ran on the host (plan key ``fallback``)."""

    mode: str = "mark"
    """``mark``: such a case passes with a mark; ``fail``: it fails as ``fallback``."""
    soft_placement: bool = False
    """TensorFlow: let ops without a kernel on the device run elsewhere (the study's
    soft-placement experiment); the probe then records where they went."""
    lower_for: str | None = None
    """JAX: the platform the probe lowers each call for (default: the cell's own)."""

    def __post_init__(self) -> None:
        if self.mode not in FALLBACK_MODES:
            raise UsageError(
                f"fallback mode {self.mode!r} is not one of {', '.join(FALLBACK_MODES)}"
            )
        if self.lower_for is not None and self.lower_for not in LOWERING_PLATFORMS:
            raise UsageError(
                f"cannot lower for {self.lower_for!r}; choose one of "
                f"{', '.join(LOWERING_PLATFORMS)}"
            )

    def cli_args(self) -> list[str]:
        """The bench flags that give these settings, so a case's rerun command keeps them."""
        args = [] if self.mode == "mark" else ["--fallback", self.mode]
        args += ["--soft-placement"] if self.soft_placement else []
        return args + (["--lower-for", self.lower_for] if self.lower_for else [])

    def to_plan(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "soft_placement": self.soft_placement,
            "lower_for": self.lower_for,
        }


def fallback_cli_args(plan: dict[str, Any]) -> list[str]:
    """The bench flags of a compiled plan's fallback settings (none for an older plan)."""
    given = plan.get("fallback")
    if not isinstance(given, dict):
        return []
    lower_for = given.get("lower_for")
    return FallbackOptions(
        mode=str(given.get("mode", "mark")),
        soft_placement=bool(given.get("soft_placement")),
        lower_for=lower_for if isinstance(lower_for, str) else None,
    ).cli_args()


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
    label: str | None = None
    fallback: FallbackOptions = field(default_factory=FallbackOptions)

    differential: bool | None = None
    """Run each case's CPU twin and compare; None: wherever the accelerator is not the CPU."""
    cell_budget_s: float | None = DEFAULT_CELL_BUDGET_S
    """The cell's wall-time cap (warm timing is thinned to meet it); None or 0: no cap."""


def check_label(label: str | None) -> str | None:
    """A run label as the plan keeps it: one line of printable text, or None."""
    if label is None:
        return None
    text = label.strip()
    # One short line: the report prints it inside table cells and the HTML page.
    if not text or len(text) > MAX_LABEL or not text.isprintable():
        raise UsageError(
            f"--label takes one line of 1 to {MAX_LABEL} printable characters, not {label[:40]!r}"
        )
    return text


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
                        "code_sha256": entry.case_code_sha256.get(name),
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
        rerun_prefix=cell.rerun_prefix("bench", *options.fallback.cli_args()),
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
    document: dict[str, Any] = {
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
        "fallback": options.fallback.to_plan(),
        "differential": (
            accelerator.get("flavor") != "cpu"
            if options.differential is None
            else options.differential
        ),
        "cell_budget_s": options.cell_budget_s or None,
        "seed": options.seed,
        "rerun_prefix": rerun_prefix,
        "portbench_version": __version__,
    }
    # Written only when given: an unlabelled plan stays byte for byte what it was.
    label = check_label(options.label)
    if label is not None:
        document["label"] = label
    return document


def plan_case_count(plan: dict[str, Any]) -> int:
    return sum(len(f["cases"]) for f in plan["functions"])


def timing_for_mode(mode: str) -> dict[str, Any]:
    """A plan's ``timing`` for a matrix's ``--timing`` mode: the default (adaptive) left
    implicit, as `bench` leaves it, so a matrix cell and a bench cell of the same settings
    pair in `compare`."""
    return {} if mode == "adaptive" else {"mode": mode}


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
    from .manifest import read_case_code

    options = options or PlanOptions()
    cases_dir = root / "cases"
    cases_dir.mkdir(parents=True, exist_ok=True)
    functions = []
    for stem, source in case_files.items():
        path = cases_dir / f"{stem}.py"
        path.write_text(source)
        code = read_case_code(path)
        names = list(code)
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
                        "code_sha256": code[name],
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
