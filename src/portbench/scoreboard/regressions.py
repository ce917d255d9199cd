"""What changed between adjacent releases of a series: outcomes that flipped, cases that are
flaky, timings that moved, and the steps of each case's timings over the whole series.

- **Outcome flips** are read directly: a case that passed in the release before and fails
  in the next is **broke**, the reverse **fixed**, any other move **changed**. A case is
  paired only with itself: same id, and the same code where both releases' plans give it
  (a case whose code changed is listed apart, never a flip).
- **Flaky** cases (runs of one release disagree) are reported apart and are never a flip.
- **Timings** of cases that passed in both releases are compared with ``compare``'s own
  statistics (its rank test and bootstrap interval on the warm samples, every run of a
  release pooled), the p-values corrected over all cases of the pair (Benjamini-Hochberg,
  scipy) and a change called only beyond ``compare``'s threshold; cases with too few
  samples get no verdict, and are counted.
- **Steps**: each case's warm medians over every release go through :mod:`.steps`.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from ..compare.pairs import Thresholds
from ..compare.stats import RatioEstimate, estimate_ratio, too_few
from .history import CaseState, ReleaseView, release_views
from .model import UNKNOWN, Series, SeriesKey
from .steps import Step, detect_steps

__all__ = [
    "Flip",
    "PairReport",
    "SeriesReport",
    "SpeedChange",
    "SpeedStep",
    "also_changed",
    "analyse",
]


@dataclass(frozen=True)
class Flip:
    case: str
    function: str
    kind: str
    """broke, fixed or changed."""
    before: CaseState
    after: CaseState


@dataclass(frozen=True)
class SpeedChange:
    case: str
    function: str
    estimate: RatioEstimate
    q_value: float
    median_before_ms: float
    median_after_ms: float
    verdict: str
    """slower, faster or same."""


@dataclass(frozen=True)
class SpeedStep:
    case: str
    function: str
    step: Step
    release: str
    """The first release at the new level."""
    previous: str


@dataclass
class PairReport:
    """Two adjacent releases of a series."""

    before: ReleaseView
    after: ReleaseView
    flips: list[Flip] = field(default_factory=list)
    flaky: list[tuple[str, CaseState]] = field(default_factory=list)
    """(release, state) of each case flaky in either release."""
    code_changed: list[str] = field(default_factory=list)
    speed: list[SpeedChange] = field(default_factory=list)
    speed_tested: int = 0
    speed_untested: int = 0
    """Cases passing in both releases without enough warm samples for a verdict."""
    also_changed: list[str] = field(default_factory=list)

    def of(self, kind: str) -> list[Flip]:
        return [f for f in self.flips if f.kind == kind]


@dataclass
class SeriesReport:
    key: SeriesKey
    views: list[ReleaseView]
    pairs: list[PairReport]
    steps: list[SpeedStep]


def also_changed(before: ReleaseView, after: ReleaseView) -> list[str]:
    """What else moved between two releases (Python, NumPy), as the runs say."""
    out: list[str] = []
    for name, label in (("python", "Python"), ("numpy", "numpy")):
        a, b = before.facts(name), after.facts(name)
        if a != b and (a or b):
            out.append(f"{label} {', '.join(sorted(a)) or '?'} → {', '.join(sorted(b)) or '?'}")
    return out


def _flip_kind(a: str, b: str) -> str:
    if a == "pass" and b == "fail":
        return "broke"
    if a in ("fail", "error") and b == "pass":
        return "fixed"
    return "changed"


def _samples(state: CaseState) -> list[float]:
    """Warm samples of every run of the release that passed, pooled."""
    return [v for r in state.results if r.outcome == "pass" for v in r.samples_ms]


def _median(state: CaseState) -> float | None:
    medians = [r.warm_median_ms for r in state.results if r.outcome == "pass" and r.warm_median_ms]
    return statistics.median(medians) if medians else None


def _compare(pair: PairReport, thresholds: Thresholds) -> None:
    tested: list[tuple[str, str, RatioEstimate, float, float]] = []
    for case, after in pair.after.cases.items():
        before = pair.before.cases.get(case)
        if before is None or before.flaky or after.flaky:
            continue
        if before.outcome != "pass" or after.outcome != "pass" or before.code != after.code:
            continue
        a, b = _samples(before), _samples(after)
        ma, mb = _median(before), _median(after)
        if ma is None or mb is None:
            continue
        if too_few(len(a), len(b), thresholds.alpha):
            pair.speed_untested += 1
            continue
        estimate = estimate_ratio(
            [a], [b], [statistics.median(a)], [statistics.median(b)], thresholds.alpha
        )
        tested.append((case, after.function, estimate, ma, mb))
    pair.speed_tested = len(tested)
    if not tested:
        return
    # Imported here: scipy.stats costs every portbench command almost a second at start-up.
    from scipy.stats import false_discovery_control

    q_values = false_discovery_control([t[2].p_value or 1.0 for t in tested], method="bh")
    for (case, function, estimate, ma, mb), q in zip(tested, q_values, strict=True):
        verdict = "same"
        if q < thresholds.alpha and abs(estimate.ratio - 1) > thresholds.slower:
            verdict = "slower" if estimate.ratio > 1 else "faster"
        pair.speed.append(SpeedChange(case, function, estimate, float(q), ma, mb, verdict))


def _pair(before: ReleaseView, after: ReleaseView, thresholds: Thresholds) -> PairReport:
    pair = PairReport(before, after, also_changed=also_changed(before, after))
    for view in (before, after):
        pair.flaky += [(view.release, state) for state in view.flaky]
    for case, state in sorted(after.cases.items()):
        prior = before.cases.get(case)
        if prior is None or prior.flaky or state.flaky:
            continue
        if prior.code is not None and state.code is not None and prior.code != state.code:
            pair.code_changed.append(case)
            continue
        if prior.outcome != state.outcome:
            pair.flips.append(
                Flip(case, state.function, _flip_kind(prior.outcome, state.outcome), prior, state)
            )
    _compare(pair, thresholds)
    return pair


def _steps(views: list[ReleaseView]) -> list[SpeedStep]:
    out: list[SpeedStep] = []
    cases = sorted({case for view in views for case in view.cases})
    for case in cases:
        points = [
            (view.release, median, view.cases[case].function)
            for view in views
            if case in view.cases and (median := _median(view.cases[case])) is not None
        ]
        for step in detect_steps([p[1] for p in points]):
            release, _, function = points[step.index]
            out.append(SpeedStep(case, function, step, release, points[step.index - 1][0]))
    return out


def analyse(series: Series, thresholds: Thresholds | None = None) -> SeriesReport:
    """Every adjacent pair of releases of ``series``, and the steps over all of them."""
    limits = thresholds or Thresholds()
    views = release_views(series)
    # Runs of no known release have no place in the order: shown, never paired.
    known = [view for view in views if view.release != UNKNOWN]
    pairs = [_pair(a, b, limits) for a, b in zip(known, known[1:], strict=False)]
    return SeriesReport(series.key, views, pairs, _steps(known))
