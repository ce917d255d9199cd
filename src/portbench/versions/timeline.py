"""Portability along the version axis: one framework's cells, one per release, in order.

- per release: how many functions pass, are partial, complete or untested (a release that
  did not install is listed with its sentence, never dropped);
- per function and per case: the release where it became portable, broke, was fixed, or
  (for a function) changed between partial and complete, each step said with what else moved
  there (Python, numpy), so a transition is not blamed on the framework alone;
- the new failures of each step (function, category, message), the list to classify by hand;
- warm-median trends between adjacent releases, with compare's verdict where both sides have
  enough samples, and marked where they do not.

Adjacent means adjacent among the releases that ran: a release that did not install is
bridged, and the step names it. The input is :class:`ReleaseRun` values; reading them from
run directories is the loader's job.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..compare.pairs import Thresholds
from ..compare.stats import RatioEstimate, estimate_ratio, too_few
from ..compare.verdicts import verdict_alone
from ..outcomes import function_outcome
from ..releases.spec import Release

__all__ = [
    "CaseResult",
    "ReleaseRun",
    "Step",
    "Transition",
    "Trend",
    "function_outcomes_of",
    "new_failures",
    "portability",
    "steps",
    "transitions",
    "trends",
]

#: compare's default: slower or faster beyond this share, and significant.
SLOWER = 0.10
ALPHA = 0.05


@dataclass(frozen=True)
class CaseResult:
    function: str
    outcome: str
    """``pass``, ``fail``, ``skip`` or ``error``."""
    category: str | None = None
    message: str | None = None
    """The failure's first line, as recorded."""
    samples_ms: tuple[float, ...] = ()


@dataclass(frozen=True)
class ReleaseRun:
    release: Release
    python: str | None
    numpy: str | None
    functions: tuple[str, ...]
    """Every function the plan lists: the denominator."""
    cases: Mapping[str, CaseResult] = field(default_factory=dict)
    skipped: str | None = None
    """Why the release has no cell (it does not install), in one sentence; None if it ran."""


@dataclass(frozen=True)
class Step:
    """Two adjacent releases that ran, and what else changed between them."""

    before: ReleaseRun
    after: ReleaseRun
    bridged: tuple[ReleaseRun, ...]
    """Releases between them that did not run."""

    @property
    def also_changed(self) -> list[str]:
        changed = []
        for what, a, b in (
            ("Python", self.before.python, self.after.python),
            ("numpy", self.before.numpy, self.after.numpy),
        ):
            if a != b:
                changed.append(f"{what} {a or '?'} -> {b or '?'}")
        return changed

    @property
    def label(self) -> str:
        text = f"{self.before.release.version} -> {self.after.release.version}"
        if self.bridged:
            text += f" ({', '.join(r.release.version for r in self.bridged)} did not install)"
        return text


@dataclass(frozen=True)
class Transition:
    level: str
    """``function`` or ``case``."""
    key: str
    step: Step
    kind: str
    """``became portable``, ``broke``, ``fixed`` or ``changed``."""
    before: str
    after: str


@dataclass(frozen=True)
class Trend:
    case: str
    step: Step
    ratio: float | None
    verdict: str
    """``slower``, ``faster``, ``same`` or ``too few samples``."""


def _ordered(runs: Sequence[ReleaseRun]) -> list[ReleaseRun]:
    frameworks = {r.release.framework for r in runs}
    if len(frameworks) > 1:
        raise ValueError(f"one framework per timeline, got {sorted(frameworks)}")
    return sorted(runs, key=lambda r: r.release.parsed)


def steps(runs: Sequence[ReleaseRun]) -> list[Step]:
    """Adjacent pairs of releases that ran, oldest first."""
    found: list[Step] = []
    previous: ReleaseRun | None = None
    between: list[ReleaseRun] = []
    for run in _ordered(runs):
        if run.skipped is not None:
            between.append(run)
            continue
        if previous is not None:
            found.append(Step(previous, run, tuple(between)))
        previous, between = run, []
    return found


def function_outcomes_of(run: ReleaseRun) -> dict[str, str]:
    by_function: dict[str, list[str]] = {name: [] for name in run.functions}
    for case in run.cases.values():
        by_function.setdefault(case.function, []).append(case.outcome)
    return {name: function_outcome(outcomes) for name, outcomes in by_function.items()}


def portability(runs: Sequence[ReleaseRun]) -> list[tuple[Release, dict[str, int] | str]]:
    """Per release: counts of function outcomes, or the sentence saying why it did not run."""
    table: list[tuple[Release, dict[str, int] | str]] = []
    for run in _ordered(runs):
        if run.skipped is not None:
            table.append((run.release, run.skipped))
            continue
        counts = dict.fromkeys(("pass", "partial", "complete", "untested"), 0)
        for outcome in function_outcomes_of(run).values():
            counts[outcome] = counts.get(outcome, 0) + 1
        table.append((run.release, counts))
    return table


_WORKS = {"pass"}
_FAILS = {"fail", "partial", "complete"}


def _kind(before: str, after: str, worked_before: bool) -> str | None:
    if before == after:
        return None
    if before in _FAILS and after in _WORKS:
        return "fixed" if worked_before else "became portable"
    if before in _WORKS and after in _FAILS:
        return "broke"
    if before in _FAILS and after in _FAILS:
        return "changed"  # partial <-> complete
    return None  # to or from skip, error, untested: nothing to say about portability


def transitions(runs: Sequence[ReleaseRun]) -> list[Transition]:
    """Every function and case transition, oldest step first."""
    found: list[Transition] = []
    worked: dict[tuple[str, str], bool] = {}
    for step in steps(runs):
        before_f, after_f = function_outcomes_of(step.before), function_outcomes_of(step.after)
        for name, outcome in before_f.items():
            worked[("function", name)] = worked.get(("function", name), False) or outcome == "pass"
        for name in sorted(set(before_f) & set(after_f)):
            kind = _kind(before_f[name], after_f[name], worked[("function", name)])
            if kind:
                found.append(
                    Transition("function", name, step, kind, before_f[name], after_f[name])
                )
        for case_id, case in step.before.cases.items():
            key = ("case", case_id)
            worked[key] = worked.get(key, False) or case.outcome == "pass"
        for case_id in sorted(set(step.before.cases) & set(step.after.cases)):
            a, b = step.before.cases[case_id].outcome, step.after.cases[case_id].outcome
            kind = _kind(a, b, worked[("case", case_id)])
            if kind:
                found.append(Transition("case", case_id, step, kind, a, b))
    return found


def new_failures(step: Step) -> list[tuple[str, str | None, str | None]]:
    """The (function, category, message) failures of ``step.after`` that ``step.before``
    did not have: each one to classify by hand as a finding or a bug of a case."""

    def failures(run: ReleaseRun) -> set[tuple[str, str | None, str | None]]:
        return {
            (c.function, c.category, c.message) for c in run.cases.values() if c.outcome == "fail"
        }

    return sorted(
        failures(step.after) - failures(step.before), key=lambda t: tuple(str(x) for x in t)
    )


def _estimate(a: Sequence[float], b: Sequence[float], alpha: float) -> RatioEstimate:
    """compare's estimate for one run a side."""
    return estimate_ratio([a], [b], [statistics.median(a)], [statistics.median(b)], alpha)


def trends(runs: Sequence[ReleaseRun], slower: float = SLOWER, alpha: float = ALPHA) -> list[Trend]:
    """Per case passing on both sides of a step: the warm-median ratio (after / before) and
    compare's verdict, or ``too few samples`` where either side has fewer than compare needs."""
    found: list[Trend] = []
    for step in steps(runs):
        for case_id in sorted(set(step.before.cases) & set(step.after.cases)):
            a, b = step.before.cases[case_id], step.after.cases[case_id]
            if a.outcome != "pass" or b.outcome != "pass":
                continue
            if too_few(len(a.samples_ms), len(b.samples_ms), alpha):
                found.append(Trend(case_id, step, None, "too few samples"))
                continue
            estimate = _estimate(a.samples_ms, b.samples_ms, alpha)
            verdict = verdict_alone(estimate, Thresholds(slower, alpha))
            found.append(Trend(case_id, step, estimate.ratio, verdict))
    return found
