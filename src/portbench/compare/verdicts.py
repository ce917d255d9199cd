"""Every case of a comparison gets its verdict at once, after the p-values are adjusted.

The family is everything one ``portbench compare`` tests: every timed case of every pair of
cells. Benjamini-Hochberg keeps the expected share of false discoveries among the flagged
cases at alpha; a case is then ``slower`` or ``faster`` only when its adjusted p (q) is at
most alpha, its ratio is beyond the minimum (``--threshold``), and, with several runs a
side, its runs do not overlap and its ratio is beyond the cell's noise floor (the change is
larger than the noise between runs); with one run a side, where that noise is not measured,
the whole 95% interval of the ratio must lie beyond the minimum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from .stats import TOO_FEW, RatioEstimate, benjamini_hochberg

if TYPE_CHECKING:
    from .pairs import CellComparison, Thresholds

__all__ = [
    "TOO_FEW_VERDICT",
    "VERDICTS",
    "decide",
    "noise_floor",
    "single_run",
    "verdict",
    "verdict_alone",
]

#: The verdict of a case with too few samples on a side for the exact test to reach alpha.
TOO_FEW_VERDICT = "too few"
VERDICTS = ("slower", "faster", "same", TOO_FEW_VERDICT, "none")


#: The share of a cell's cases whose noise between runs the noise floor covers.
NOISE_QUANTILE = 0.95


def single_run(estimate: RatioEstimate) -> bool:
    """One run a side: nothing measures the noise between runs (a rerun of the same plan
    moves whole cases by more than their samples spread within one run)."""
    return estimate.runs_a == 1 and estimate.runs_b == 1


def verdict(estimate: RatioEstimate | None, slower: float) -> str:
    """``slower``/``faster`` (significant and beyond the minimum ratio and the noise floor),
    ``same``, ``too few`` (no test possible) or ``none`` (not timed on both sides).

    With one run a side the ratio alone is not enough: the whole 95% interval of B/A must
    lie beyond the minimum ratio. The interval measures the noise within the two runs only,
    so this is a stricter bar, not a measure of the noise between runs; several runs a side
    measure that (``runs_apart`` and the noise floor).
    """
    if estimate is None:
        return "none"
    if estimate.method == TOO_FEW:
        return TOO_FEW_VERDICT
    if not estimate.significant:
        return "same"
    least = max(1.0 + slower, estimate.noise_floor or 1.0)
    low, high = estimate.ratio, estimate.ratio
    if single_run(estimate):
        if estimate.low is None or estimate.high is None:
            return "same"
        low, high = estimate.low, estimate.high
    if low > least:
        return "slower"
    if high < 1.0 / least:
        return "faster"
    return "same"


def verdict_alone(estimate: RatioEstimate, thresholds: Thresholds) -> str:
    """The verdict of one test on its own (a family of one: no adjustment), for readers that
    test one step at a time (the version timeline)."""
    p_value = estimate.p_value
    significant = p_value is not None and p_value <= thresholds.alpha
    return verdict(replace(estimate, significant=significant), thresholds.slower)


def noise_floor(comparison: CellComparison) -> float | None:
    """The cell's noise between runs: the 95th percentile of its cases' run spreads."""
    spreads = sorted(
        c.estimate.run_spread
        for c in comparison.cases
        if c.estimate is not None and c.estimate.run_spread is not None
    )
    if not spreads:
        return None
    return spreads[min(len(spreads) - 1, int(NOISE_QUANTILE * len(spreads)))]


def decide(comparisons: Sequence[CellComparison], thresholds: Thresholds) -> None:
    """Adjust the p-values of every tested case of ``comparisons`` together, then set each
    case's q-value, significance and verdict (in place)."""
    tested = [
        (comparison, index)
        for comparison in comparisons
        for index, case in enumerate(comparison.cases)
        if case.estimate is not None and case.estimate.p_value is not None
    ]
    p_values = [c.cases[i].estimate.p_value for c, i in tested]  # type: ignore[union-attr]
    q_values = benjamini_hochberg([p for p in p_values if p is not None])
    floors = {id(c): noise_floor(c) for c in comparisons}
    for (comparison, index), q in zip(tested, q_values, strict=True):
        case = comparison.cases[index]
        assert case.estimate is not None
        significant = q <= thresholds.alpha and case.estimate.runs_apart is not False
        estimate = replace(
            case.estimate, q_value=q, significant=significant, noise_floor=floors[id(comparison)]
        )
        comparison.cases[index] = replace(case, estimate=estimate)
    for comparison in comparisons:
        comparison.cases[:] = [
            replace(case, verdict=verdict(case.estimate, thresholds.slower))
            for case in comparison.cases
        ]
