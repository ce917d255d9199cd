"""A series release by release: each case's state in each release, each function's outcome,
and where a case's outcome moved.

A release may have several runs (two profiles of one release, a rerun, two machines). A
case's outcome in a release is its newest run's; a case whose runs of one release disagree
(one passed, another failed) is **flaky** there: shown as such, never counted as a change
between releases. Function outcomes follow the one rule of :mod:`portbench.outcomes` over
every function the release's runs planned, a function with no record included.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from ..outcomes import CPU_TOO, function_outcome
from .model import Result, Run, Series

__all__ = ["CaseState", "ReleaseView", "Transition", "release_views", "transitions"]

FunctionKey = tuple[str, str | None]


@dataclass(frozen=True)
class CaseState:
    """One case in one release: its newest run's result, and every run's."""

    case: str
    function: str
    results: tuple[Result, ...]
    """One per run of the release that recorded the case, oldest first."""

    @property
    def newest(self) -> Result:
        return self.results[-1]

    @property
    def outcome(self) -> str:
        return self.newest.outcome

    @property
    def flaky(self) -> bool:
        """Runs of one release disagree: one passed where another failed."""
        seen = {r.outcome for r in self.results}
        return "pass" in seen and "fail" in seen

    @property
    def code(self) -> str | None:
        return self.newest.code


@dataclass(frozen=True)
class ReleaseView:
    release: str
    runs: tuple[Run, ...]
    cases: dict[str, CaseState]
    functions: dict[FunctionKey, str]
    """Function outcome (pass, partial, complete, untested, cpu_too) of every planned function."""

    @property
    def newest(self) -> datetime | None:
        """When the release's newest evidence was made (None: no run says)."""
        times = [r.started_at for r in self.runs if r.started_at is not None]
        return max(times) if times else None

    def facts(self, name: str) -> set[str]:
        """What the runs say of ``python`` or ``numpy`` (unknown left out)."""
        return {value for r in self.runs if (value := getattr(r, name))}

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = defaultdict(int)
        for outcome in self.functions.values():
            out[outcome] += 1
        return dict(out)

    @property
    def flaky(self) -> list[CaseState]:
        return [state for state in self.cases.values() if state.flaky]


def _view(release: str, runs: list[Run], series: Series) -> ReleaseView:
    by_case: dict[str, list[Result]] = defaultdict(list)
    planned: set[FunctionKey] = set()
    for run in runs:  # oldest first: the newest run's result is last
        planned.update(series.planned.get(run.key, ()))
        for result in series.results.get(run.key, ()):
            by_case[result.case].append(result)
    cases = {
        case: CaseState(case, results[-1].function, tuple(results))
        for case, results in by_case.items()
    }
    outcomes: dict[FunctionKey, list[str]] = {key: [] for key in planned}
    for state in cases.values():
        newest = state.newest
        key = (newest.function, newest.study_test_file)
        outcomes.setdefault(key, []).append(CPU_TOO if newest.fails_on_cpu else newest.outcome)
    functions = {key: function_outcome(values) for key, values in outcomes.items()}
    return ReleaseView(release, tuple(runs), cases, functions)


def release_views(series: Series) -> list[ReleaseView]:
    """The series release by release, oldest first."""
    return [_view(release, series.runs_of(release), series) for release in series.releases()]


@dataclass(frozen=True)
class Transition:
    """A case's outcome moving between two releases where it was not flaky."""

    case: str
    before: str
    after: str
    outcome_before: str
    outcome_after: str

    @property
    def kind(self) -> str:
        """``portable`` (fail/error -> pass), ``broke`` (pass -> fail), ``changed``."""
        if self.outcome_after == "pass" and self.outcome_before in ("fail", "error"):
            return "portable"
        if self.outcome_before == "pass" and self.outcome_after == "fail":
            return "broke"
        return "changed"


def transitions(case: str, views: list[ReleaseView]) -> list[Transition]:
    """Where ``case``'s outcome moved, release to release (a release without the case, or
    where it is flaky, is passed over; a change of the case's code is not a move)."""
    out: list[Transition] = []
    last: tuple[str, CaseState] | None = None
    for view in views:
        state = view.cases.get(case)
        if state is None or state.flaky:
            continue
        if last is not None:
            before = last[1]
            same_code = before.code is None or state.code is None or before.code == state.code
            if same_code and before.outcome != state.outcome:
                out.append(Transition(case, last[0], view.release, before.outcome, state.outcome))
        last = (view.release, state)
    return out
