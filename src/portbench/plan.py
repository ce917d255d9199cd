"""Compiling a cell (manifest + profile + accelerator + settings) into its plan.

The plan is the contract's typed, frozen :class:`~portbench_runner.contract.Plan` (its
schema history lives there). It is compiled here, once; what a backend adds once the
cell's environment is prepared goes in through ``Plan.in_environment`` (one typed step,
taken by bench, census, rerun and a Ray node alike); it is written to plan.json once.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from portbench_runner.contract import (
    DEFAULT_CASE_TIMEOUT_S,
    DEFAULT_CELL_BUDGET_S,
    DEFAULT_GRACE_S,
    DEFAULT_MAX_RESTARTS,
    DEFAULT_SEED,
    DEFAULT_WORKER_START_S,
    DOCUMENT,
    LOWERING_PLATFORMS,
    PLAN_SCHEMA,
    ContractError,
    FallbackMode,
    FallbackSettings,
    ImageRef,
    LineRefused,
    MutationSettings,
    Plan,
    PlanAccelerator,
    PlanCase,
    PlanFunction,
    PlanInvalid,
    PredictionSettings,
    Provenance,
    Rule,
    StudyPlan,
    Timeouts,
    TimingSettings,
    is_study_plan,
    read_json,
)

from . import __version__
from .accelerators import Accelerator
from .errors import PlanError, ResultsError, UsageError
from .manifest import FunctionEntry, Manifest
from .results.safeio import create_whole

__all__ = [
    "DEFAULT_CASE_TIMEOUT_S",
    "DEFAULT_CELL_BUDGET_S",
    "DEFAULT_SEED",
    "FALLBACK_MODES",
    "LOWERING_PLATFORMS",
    "PLAN_SCHEMA",
    "CellSpec",
    "FallbackOptions",
    "Plan",
    "PlanOptions",
    "case_seed",
    "check_case_files",
    "check_label",
    "compile_plan",
    "new_plan",
    "plan_accelerator",
    "plan_from_case_files",
    "read_any_plan",
    "read_plan",
    "write_plan",
]

MAX_LABEL = 80


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


FALLBACK_MODES = tuple(m.value for m in FallbackMode)


@dataclass(frozen=True)
class FallbackOptions:
    """What a cell does with work that ran on the host (plan key ``fallback``), as the
    command line gives it: checked here, so a bad value is one sentence."""

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

    def settings(self) -> FallbackSettings:
        return FallbackSettings(FallbackMode(self.mode), self.soft_placement, self.lower_for)


@dataclass(frozen=True)
class PlanOptions:
    functions: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    seed: int = DEFAULT_SEED
    case_timeout_s: float = DEFAULT_CASE_TIMEOUT_S
    worker_start_s: float = DEFAULT_WORKER_START_S
    grace_s: float = DEFAULT_GRACE_S
    max_restarts: int = DEFAULT_MAX_RESTARTS
    cases_per_worker: int = 0
    timing: TimingSettings = field(default_factory=dict)
    image: ImageRef | None = None
    label: str | None = None
    fallback: FallbackOptions = field(default_factory=FallbackOptions)
    provenance: Provenance | None = None
    """The release a cell names and the lock that installs it (issue 28)."""
    prediction: PredictionSettings | None = None
    """A cell that predicts a target instead of running on it (issue 30)."""
    mutation: MutationSettings | None = None
    """A mutation run's settings (issue 33)."""

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


def _planned(
    entry: FunctionEntry, names: list[str], profile: str, options: PlanOptions
) -> PlanFunction:
    cases = tuple(
        PlanCase(
            entry.case_id(name),
            name,
            case_seed(options.seed, entry.case_id(name)),
            entry.timeout_s or options.case_timeout_s,
            entry.case_code_sha256.get(name),
        )
        for name in names
    )
    return PlanFunction(
        function=entry.function,
        case_file=entry.case_file,
        cases=cases,
        study_test_file=entry.study_test_file,
        stratum=entry.stratum,
        frequency=entry.frequency,
        case_file_sha256=entry.case_file_sha256,
        untested_reason=entry.untested.get(profile),
        file_cases=tuple(entry.cases),
    )


def compile_plan(
    cell: CellSpec,
    manifest: Manifest,
    rules: Sequence[Rule],
    options: PlanOptions,
    manifest_root: str | None = None,
) -> Plan:
    """The plan for one cell; ``manifest_root`` is the manifest folder as the cell sees it."""
    wanted_functions = set(options.functions)
    known = {f.function for f in manifest.functions}
    unknown = sorted(wanted_functions - known)
    if unknown:
        raise UsageError(
            f"{', '.join(unknown)} not in the {manifest.framework} manifest; "
            "`portbench list --framework F` shows its functions"
        )
    missing = sorted(set(options.cases) - set(manifest.case_ids()))
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
        try:
            functions.append(_planned(entry, names, cell.profile, options))
        except PlanInvalid as exc:
            # Refused before anything is built or started: a name over the contract's
            # bounds would be carried by every message about its case.
            raise UsageError(f"{manifest.framework} manifest, {entry.case_file}: {exc}") from None
    if not any(f.cases for f in functions):
        raise UsageError(
            f"the selection holds no case of the {manifest.framework} manifest; "
            "`portbench list` shows its functions and case ids"
        )
    return new_plan(
        cell,
        manifest_root or str(manifest.root),
        tuple(functions),
        tuple(rules),
        options,
        cell.rerun_prefix(
            "bench",
            *options.fallback.settings().cli_args(),
            *(["--no-timing"] if options.timing.get("mode") == "none" else []),
        ),
    )


def plan_accelerator(accelerator: Accelerator) -> PlanAccelerator:
    """The accelerator as a plan names it (the table's id, flavor and device checks, with
    a ROCm model's gfx target)."""
    return PlanAccelerator(
        accelerator.id,
        accelerator.flavor,
        accelerator.device_match,
        accelerator.generic,
        accelerator.gfx,
    )


def new_plan(
    cell: CellSpec,
    manifest_root: str,
    functions: tuple[PlanFunction, ...],
    rules: tuple[Rule, ...],
    options: PlanOptions,
    rerun_prefix: str,
) -> Plan:
    """A plan of the current schema from compiled functions and the options; the one place
    the settings of a plan are written (bench, census, tests and benchmarks)."""
    accelerator = plan_accelerator(cell.accelerator)
    try:
        return Plan(
            cell=cell.cell_id,
            framework=cell.framework,
            profile=cell.profile,
            backend=cell.backend,
            accelerator=accelerator,
            manifest_root=manifest_root,
            functions=functions,
            rerun_prefix=rerun_prefix,
            rules=rules,
            timeouts=Timeouts(options.case_timeout_s, options.worker_start_s, options.grace_s),
            max_restarts=options.max_restarts,
            timing=dict(options.timing),
            image=options.image,
            cases_per_worker=options.cases_per_worker,
            fallback=options.fallback.settings(),
            differential=accelerator.flavor != "cpu"
            if options.differential is None
            else options.differential,
            cell_budget_s=options.cell_budget_s or None,
            seed=options.seed,
            portbench_version=__version__,
            label=check_label(options.label),
            provenance=options.provenance,
            prediction=options.prediction,
            mutation=options.mutation,
        )
    except PlanInvalid as exc:
        raise UsageError(str(exc)) from None


def timing_for_mode(mode: str) -> TimingSettings:
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
) -> Plan:
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
        cases = tuple(
            PlanCase(
                f"demo.{stem}::{name}",
                name,
                index,
                (case_timeouts or {}).get(name, options.case_timeout_s),
                code[name],
            )
            for index, name in enumerate(names)
        )
        functions.append(
            PlanFunction(
                f"demo.{stem}",
                f"cases/{stem}.py",
                cases,
                f"{stem}_test.py",
                "1",
                1,
                None,
                None,
                tuple(names),
            )
        )
    cpu = Accelerator("cpu", "cpu", "", "cpu", "")
    return new_plan(
        CellSpec(framework, cpu, "host", "host"),
        str(root),
        tuple(functions),
        (),
        options,
        f"portbench bench --framework {framework} --accelerator cpu --profile host",
    )


def check_case_files(plan: Plan, root: Path, fix: str = "") -> None:
    """Every case file under ``root`` hashes as the plan says it did when it was compiled, or
    one sentence says which does not (a plan run elsewhere must run the same cases)."""
    hashed: dict[str, str] = {}
    for function in plan.functions:
        expected = function.case_file_sha256
        if not expected:
            continue
        if function.case_file not in hashed:
            try:
                data = (root / function.case_file).read_bytes()
                hashed[function.case_file] = hashlib.sha256(data).hexdigest()
            except OSError:
                hashed[function.case_file] = "missing"
        actual = hashed[function.case_file]
        if actual != expected:
            raise UsageError(
                f"{function.case_file} is not the case file the plan of {plan.cell} was "
                f"compiled with ({expected[:12]}, here {actual[:12]}); "
                + (fix or f"run portbench {plan.portbench_version or ''} here to run that plan")
            )


def read_any_plan(path: Path) -> Plan | StudyPlan:
    """A plan file, read within bounds without following a link: a cell's plan or a study
    cell's; a missing, unreadable, newer or malformed plan is one sentence."""
    from .results.safeio import read_bounded

    try:
        obj = read_json(read_bounded(path, DOCUMENT.max_bytes), DOCUMENT)
    except FileNotFoundError:
        raise PlanError(f"{path}: there is no plan here (no plan.json)") from None
    except (OSError, LineRefused, ResultsError) as exc:
        raise PlanError(f"{path}: cannot read the plan ({exc})") from None
    try:
        if is_study_plan(obj):
            return StudyPlan.from_json(obj, str(path))
        return Plan.from_json(obj, str(path))
    except ContractError as exc:
        raise PlanError(f"{exc}; compile it anew with portbench bench") from None


def read_plan(path: Path) -> Plan:
    """A cell's plan (not a study cell's): what bench, census, rerun and compare run."""
    plan = read_any_plan(path)
    if isinstance(plan, StudyPlan):
        raise PlanError(
            f"{path} is the plan of a study cell (the study's published results, imported): it "
            "names the study's functions and compiles no case, so nothing can run or resume it"
        )
    return plan


def write_plan(plan: Plan, path: Path) -> None:
    """Write the plan once (never over another: a cell directory keeps the plan it ran), whole
    or not at all: a write that fails (a full disk, a file size limit) leaves no plan.json,
    says so in one sentence (``DiskFull``), and the cell can be started again."""
    text = json.dumps(plan.to_json(), indent=2, sort_keys=True) + "\n"
    create_whole(path, text.encode("utf-8"))
