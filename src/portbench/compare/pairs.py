"""Two runs of a cell, case by case: what changed, what got slower, what broke.

A side is a cell directory or a run directory (its cells). Cells pair on their id, then
(for two profiles, or two accelerators, of one framework) on framework and accelerator,
then on framework alone. Cases pair on case id, the case's own code hash (the case-file
hash for plans made before per-case hashes), seed and the plan's timing settings: a case that matches on id but not on the rest is counted as unpaired,
with the reason, never compared and never dropped silently. Every other difference
between the two plans (accelerator, profile, backend, image, versions, host) is listed.
Everything is read through the typed results layer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from portbench_runner.contract import EnvDocument, Plan, StudyPlan

from ..errors import UsageError
from ..outcomes import function_outcomes
from ..plan import read_any_plan
from ..results import CaseRecord, Outcome, read_results
from .envcheck import read_env
from .stats import RatioEstimate, estimate_ratio
from .verdicts import decide

__all__ = [
    "CaseComparison",
    "CellComparison",
    "CellSide",
    "Thresholds",
    "compare_cells",
    "load_side",
    "pair_cells",
]


@dataclass(frozen=True)
class Thresholds:
    slower: float = 0.10
    """A case is a regression when B's median is this much above A's (and significant)."""
    alpha: float = 0.05


@dataclass(frozen=True)
class CellSide:
    path: Path
    plan: Plan
    env: EnvDocument
    records: dict[str, CaseRecord]
    unreadable_lines: int
    env_problem: str | None = None
    """Why env.json is not usable (then ``env`` is empty and is not compared)."""

    @property
    def cell_id(self) -> str:
        return self.plan.cell

    @property
    def framework(self) -> str:
        return self.plan.framework

    @property
    def accelerator(self) -> str:
        return self.plan.accelerator.id


@dataclass(frozen=True)
class CaseComparison:
    case: str
    function: str
    outcome_a: str
    outcome_b: str
    change: str
    """``same``, ``broke`` (pass -> fail/error), ``fixed`` (fail/error -> pass), ``changed``."""
    median_a_ms: float | None = None
    median_b_ms: float | None = None
    estimate: RatioEstimate | None = None
    verdict: str = "none"
    """``slower``, ``faster``, ``same`` (within the threshold or not significant), ``too
    few`` (too few samples on a side for the rank test), ``none`` (not timed on both)."""


@dataclass
class CellComparison:
    a: CellSide
    b: CellSide
    differences: list[tuple[str, str, str]] = field(default_factory=list)
    cases: list[CaseComparison] = field(default_factory=list)
    unpaired: dict[str, int] = field(default_factory=dict)
    """Why cases could not be paired -> how many (only in A, only in B, hash, seed...)."""
    functions: list[tuple[str, str, str]] = field(default_factory=list)
    """(function, verdict in A, verdict in B) for every function whose verdict changed."""

    def count(self, verdict: str) -> int:
        return sum(1 for c in self.cases if c.verdict == verdict)

    def changes(self, change: str) -> list[CaseComparison]:
        return [c for c in self.cases if c.change == change]


def _cell_dirs(path: Path) -> list[Path]:
    if not path.is_dir():
        raise UsageError(f"{path} is not a directory; pass a run directory or a cell directory")
    if (path / "plan.json").is_file():
        return [path]
    cells = sorted(p.parent for p in path.glob("*/plan.json") if not p.parent.is_symlink())
    if not cells:
        raise UsageError(f"{path} holds no cell (no plan.json in it or its subdirectories)")
    return cells


def _plan(path: Path) -> Plan:
    """A cell's plan for a comparison; a study cell's is refused in one sentence that says
    what compare can compare."""
    plan = read_any_plan(path)
    if isinstance(plan, StudyPlan):
        raise UsageError(
            f"{path.parent} is a study cell (the study's published outcomes, imported, with "
            "no plan of cases to pair): compare pairs cells portbench ran (bench, census, "
            "rerun, matrix) case by case; `portbench report` sets study cells beside them"
        )
    return plan


def load_side(path: Path) -> list[CellSide]:
    """The cells of a run or cell directory, read through the results layer."""
    sides = []
    for cell_dir in _cell_dirs(path):
        plan = _plan(cell_dir / "plan.json")
        env, env_problem = read_env(cell_dir, plan.cell)
        read = read_results(cell_dir / "results.jsonl")
        records = {r.case: r for r in read.records}
        sides.append(CellSide(cell_dir, plan, env, records, read.skipped, env_problem))
    return sides


def pair_cells(
    a: list[CellSide], b: list[CellSide]
) -> tuple[list[tuple[CellSide, CellSide]], list[CellSide], list[CellSide]]:
    """Pairs by cell id, then framework and accelerator, then framework; the leftovers."""
    pairs: list[tuple[CellSide, CellSide]] = []
    left, right = list(a), list(b)
    keys = (
        lambda s: s.cell_id,
        lambda s: (s.framework, s.accelerator),
        lambda s: s.framework,
    )
    for key in keys:
        for side in list(left):
            matches = [other for other in right if key(other) == key(side)]
            same_key_left = [s for s in left if key(s) == key(side)]
            if len(matches) == 1 and len(same_key_left) == 1:
                pairs.append((side, matches[0]))
                left.remove(side)
                right.remove(matches[0])
    return pairs, left, right


def plan_differences(a: CellSide, b: CellSide) -> list[tuple[str, str, str]]:
    """(what, in A, in B) for every property of the two cells that differs."""

    def image(side: CellSide) -> str:
        return side.plan.image.id[:19] if side.plan.image is not None else ""

    def accelerator(side: CellSide) -> str:
        name = side.env.device_name
        return f"{side.accelerator}" + (f" ({name})" if name else "")

    facts: dict[str, Callable[[CellSide], str]] = {
        "cell": lambda s: s.cell_id,
        "accelerator": accelerator,
        "profile": lambda s: s.plan.profile,
        "backend": lambda s: s.plan.backend,
        "image": image,
        "framework version": lambda s: s.env.framework_version,
        "python": lambda s: s.env.python_version,
        "host": lambda s: s.env.hostname,
        "seed": lambda s: str(s.plan.seed),
        "timing": lambda s: json.dumps(s.plan.timing, sort_keys=True),
        "portbench": lambda s: s.plan.portbench_version or "",
    }
    out = []
    if a.env_problem or b.env_problem:
        # A damaged env says nothing of versions or packages: none are compared.
        for what in ("framework version", "python", "host"):
            del facts[what]
        out.append(("env.json", a.env_problem or "usable", b.env_problem or "usable"))
    for what, get in facts.items():
        left, right = get(a), get(b)
        if left != right:
            out.append((what, left, right))
    if a.env_problem or b.env_problem:
        return out
    packages_a, packages_b = a.env.packages, b.env.packages
    for name in sorted(set(packages_a) | set(packages_b)):
        left, right = packages_a.get(name, "-"), packages_b.get(name, "-")
        if left != right:
            out.append((f"package {name}", left, right))
    return out


#: What pairs two cases: the case file's hash, the case's own code hash, its seed.
CaseKey = tuple[str | None, str | None, int]


def _case_keys(side: CellSide) -> dict[str, CaseKey]:
    """case id -> (case-file hash, the case's own code hash, seed) as the plan compiled
    them (plans before per-case hashes have None for the second)."""
    return {
        case.id: (function.case_file_sha256, case.code_sha256, case.seed)
        for function in side.plan.functions
        for case in function.cases
    }


def _code_differs(a: CaseKey, b: CaseKey) -> str | None:
    """Why two cases of one id did not run the same code, or None if they did: by the
    case's own code hash where both plans have it (a case file that only gained cases, or
    whose other cases changed, still pairs), else by the whole case file's hash."""
    (file_a, code_a, _), (file_b, code_b, _) = a, b
    if code_a is not None and code_b is not None:
        return None if code_a == code_b else "case code differs"
    return None if file_a == file_b else "case file differs"


def _change(a: Outcome, b: Outcome) -> str:
    if a == b:
        return "same"
    bad = (Outcome.FAIL, Outcome.ERROR)
    if a == Outcome.PASS and b in bad:
        return "broke"
    if a in bad and b == Outcome.PASS:
        return "fixed"
    return "changed"


def _estimate(
    runs_a: list[CaseRecord], runs_b: list[CaseRecord], alpha: float
) -> RatioEstimate | None:
    """The case's timing on both sides, every run of each (None where one is untimed)."""
    warm_a = [r.timing.warm for r in runs_a if r.timing and r.timing.warm]
    warm_b = [r.timing.warm for r in runs_b if r.timing and r.timing.warm]
    if not warm_a or not warm_b or min(w.median_ms for w in warm_a) <= 0:
        return None
    return estimate_ratio(
        [w.samples_ms for w in warm_a],
        [w.samples_ms for w in warm_b],
        [w.median_ms for w in warm_a],
        [w.median_ms for w in warm_b],
        alpha,
    )


def _more_runs(
    case_id: str, key: CaseKey, runs: Sequence[tuple[CellSide, dict[str, CaseKey]]]
) -> list[CaseRecord]:
    """The passing records of ``case_id`` in further runs of one side whose plan compiled
    the same case (code, seed; the runs' timing settings were checked): others are left out."""
    out = []
    for side, keys in runs:
        record = side.records.get(case_id)
        if record is not None and record.outcome == Outcome.PASS and keys.get(case_id) == key:
            out.append(record)
    return out


def compare_cells(
    a: CellSide,
    b: CellSide,
    thresholds: Thresholds,
    more_a: Sequence[CellSide] = (),
    more_b: Sequence[CellSide] = (),
) -> CellComparison:
    """Case by case; ``more_a``/``more_b`` are further runs of the same cell on each side,
    whose samples join the first run's (verdicts over this comparison's cases alone: the
    command decides again over every cell it compares)."""
    result = CellComparison(a, b, plan_differences(a, b))
    keys_a, keys_b = _case_keys(a), _case_keys(b)
    timing_differs = a.plan.timing != b.plan.timing
    # Further runs count only where their timing settings are their first run's.
    runs_a = [(s, _case_keys(s)) for s in more_a if s.plan.timing == a.plan.timing]
    runs_b = [(s, _case_keys(s)) for s in more_b if s.plan.timing == b.plan.timing]
    unpaired: dict[str, int] = {}

    def skip(why: str) -> None:
        unpaired[why] = unpaired.get(why, 0) + 1

    for case_id in sorted(set(keys_a) | set(keys_b)):
        if case_id not in keys_b:
            skip("only in A's plan")
            continue
        if case_id not in keys_a:
            skip("only in B's plan")
            continue
        differs = _code_differs(keys_a[case_id], keys_b[case_id])
        if differs:
            skip(differs)
            continue
        if keys_a[case_id][2] != keys_b[case_id][2]:
            skip("seed differs")
            continue
        if timing_differs:
            skip("timing settings differ")
            continue
        record_a, record_b = a.records.get(case_id), b.records.get(case_id)
        if record_a is None or record_b is None:
            skip("not recorded in " + ("A" if record_a is None else "B"))
            continue
        both_pass = record_a.outcome == Outcome.PASS == record_b.outcome
        estimate = None
        if both_pass:
            estimate = _estimate(
                [record_a, *_more_runs(case_id, keys_a[case_id], runs_a)],
                [record_b, *_more_runs(case_id, keys_b[case_id], runs_b)],
                thresholds.alpha,
            )
        result.cases.append(
            CaseComparison(
                case_id,
                record_a.function,
                record_a.outcome.value,
                record_b.outcome.value,
                _change(record_a.outcome, record_b.outcome),
                record_a.timing.warm.median_ms
                if estimate and record_a.timing and record_a.timing.warm
                else None,
                record_b.timing.warm.median_ms
                if estimate and record_b.timing and record_b.timing.warm
                else None,
                estimate,
            )
        )
    result.unpaired = unpaired
    decide([result], thresholds)
    verdicts_a = function_outcomes(a.plan, list(a.records.values()))
    verdicts_b = function_outcomes(b.plan, list(b.records.values()))
    for key in sorted(set(verdicts_a) & set(verdicts_b), key=lambda k: (k[0], k[1] or "")):
        if verdicts_a[key] != verdicts_b[key]:
            result.functions.append((key[0], verdicts_a[key], verdicts_b[key]))
    return result
