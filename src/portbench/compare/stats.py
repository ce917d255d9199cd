"""Warm timings of one case on two sides: how much slower is B, and can we tell.

- **The rank test** is scipy's Mann-Whitney U, two-sided, on the warm samples of every run
  of a side pooled. It is exact (the null distribution enumerated, ties included) while a
  side has at most ``EXACT_MAX`` samples, where the normal approximation is poor (at 3
  against 3 it says p = 0.08 where the exact p is 0.10); asymptotic, with the tie and
  continuity corrections, above that.
- **Too few samples**: with n and m samples the smallest two-sided p the exact test can
  give is 2 / C(n+m, n). A side with fewer samples than the balanced test needs to reach
  alpha (4 at 0.05, 5 at 0.01), or a pair whose smallest p is above alpha, gets no
  verdict, and the counts say why. Records with no samples (schema 1) have none.
- **Noise between runs**: with several runs per side, each run's median is kept. The
  spread of those medians within a side (largest over smallest) is the noise between runs
  a rerun of the same plan shows. With two or three runs a side one case's spread is a poor
  estimate, so the cell's noise floor is taken over all its cases (the 95th percentile of
  their spreads). A change is called only where every run of B lies beyond every run of A
  (``runs_apart``) and the ratio is beyond the noise floor, so a difference no larger than
  the noise between runs never is.
- **The ratio** is B's median over A's (pooled samples), with a 95% percentile-bootstrap
  interval (fixed seed: the same runs always give the same interval).
- **Many cases at once** (:func:`benjamini_hochberg`): a comparison tests thousands of
  cases, so at alpha 0.05 about 5% of unchanged cases would be flagged by chance. p-values
  are adjusted with Benjamini-Hochberg (false discovery rate at alpha over the comparison),
  and a case must also move by more than the minimum ratio (``--threshold``, 10%): with
  hundreds of samples a 1% shift is "significant" and still no regression worth a CI
  failure, as asv's ``factor`` says.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "EXACT_MAX",
    "RatioEstimate",
    "benjamini_hochberg",
    "estimate_ratio",
    "mann_whitney_p",
    "min_per_side",
    "smallest_p",
    "too_few",
]

#: Up to this many samples on the smaller side, the rank test is exact.
EXACT_MAX = 30
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20231
TOO_FEW = "too few samples"


@dataclass(frozen=True)
class RatioEstimate:
    ratio: float
    """Median of B over median of A: above 1 means B is slower."""
    low: float | None
    high: float | None
    """The ratio's 95% bootstrap interval; None where there are too few samples."""
    p_value: float | None
    """Mann-Whitney's two-sided p; None where there are too few samples to test."""
    method: str
    """``exact``, ``asymptotic`` (the rank test used), or ``too few samples``."""
    n_a: int = 0
    n_b: int = 0
    """Warm samples on each side (every run pooled)."""
    runs_a: int = 1
    runs_b: int = 1
    run_spread: float | None = None
    """Noise between runs: the largest ratio of two run medians within one side (None with
    one run per side: not measured)."""
    runs_apart: bool | None = None
    """Every run median of B on one side of every run median of A (None: one run a side)."""
    noise_floor: float | None = None
    """The cell's noise between runs: the 95th percentile over its timed cases of
    ``run_spread``; a change must exceed it (None with one run a side)."""
    q_value: float | None = None
    """The p-value adjusted over the whole comparison (Benjamini-Hochberg)."""
    significant: bool = False


def smallest_p(n_a: int, n_b: int) -> float:
    """The smallest two-sided p the exact rank test can give with these sample counts."""
    if n_a == 0 or n_b == 0:
        return 1.0
    return min(1.0, 2.0 / math.comb(n_a + n_b, n_a))


def min_per_side(alpha: float) -> int:
    """The fewest samples a side with which the exact test, given as many on both sides,
    can reach ``alpha``: 4 at 0.05 (2/70), 5 at 0.01 (2/252)."""
    k = 1
    while smallest_p(k, k) > alpha and k < 1000:
        k += 1
    return k


def too_few(n_a: int, n_b: int, alpha: float) -> bool:
    """Too few samples for a verdict: a side has fewer than :func:`min_per_side` (one sample
    against sixty could reach 0.05, but one sample says nothing of its side's spread), or
    no result of the exact test could reach ``alpha``."""
    return min(n_a, n_b) < min_per_side(alpha) or smallest_p(n_a, n_b) > alpha


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> tuple[float, str]:
    """Two-sided p of the Mann-Whitney U test, and whether it is exact or asymptotic."""
    if not a or not b:
        raise ValueError("both samples need values")
    if len(set(a) | set(b)) == 1:
        return 1.0, "exact"  # every value equal: no evidence of a difference
    from scipy import stats  # here: its import costs every portbench command a second

    method = "exact" if min(len(a), len(b)) <= EXACT_MAX else "asymptotic"
    result = stats.mannwhitneyu(a, b, alternative="two-sided", method=method)
    return float(min(1.0, max(0.0, result.pvalue))), method


def _bootstrap(first: np.ndarray, second: np.ndarray) -> tuple[float, float]:
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    pick_a = rng.integers(0, len(first), size=(BOOTSTRAP_RESAMPLES, len(first)))
    pick_b = rng.integers(0, len(second), size=(BOOTSTRAP_RESAMPLES, len(second)))
    ratios = np.median(second[pick_b], axis=1) / np.median(first[pick_a], axis=1)
    low, high = (float(v) for v in np.percentile(ratios, [2.5, 97.5]))
    return low, high


def _runs(
    medians_a: Sequence[float], medians_b: Sequence[float]
) -> tuple[float | None, bool | None]:
    """(noise between runs, runs apart), or (None, None) with one run on a side."""
    if len(medians_a) < 2 and len(medians_b) < 2:
        return None, None
    spreads = [max(m) / min(m) for m in (medians_a, medians_b) if len(m) > 1 and min(m) > 0]
    apart = max(medians_a) < min(medians_b) or max(medians_b) < min(medians_a)
    return (max(spreads) if spreads else None), apart


def estimate_ratio(
    samples_a: Sequence[Sequence[float]],
    samples_b: Sequence[Sequence[float]],
    medians_a: Sequence[float],
    medians_b: Sequence[float],
    alpha: float = 0.05,
) -> RatioEstimate:
    """One case: the warm samples of each run (a list per run) and each run's median."""
    pooled_a = [v for run in samples_a for v in run]
    pooled_b = [v for run in samples_b for v in run]
    median_a = float(np.median(pooled_a)) if pooled_a else float(np.median(medians_a))
    median_b = float(np.median(pooled_b)) if pooled_b else float(np.median(medians_b))
    ratio = median_b / median_a
    spread, apart = _runs(medians_a, medians_b)
    low = high = p_value = None
    method = TOO_FEW
    if not too_few(len(pooled_a), len(pooled_b), alpha):
        first, second = np.asarray(pooled_a, dtype=float), np.asarray(pooled_b, dtype=float)
        low, high = _bootstrap(first, second)
        p_value, method = mann_whitney_p(pooled_a, pooled_b)
    return RatioEstimate(
        ratio,
        low,
        high,
        p_value,
        method,
        n_a=len(pooled_a),
        n_b=len(pooled_b),
        runs_a=len(medians_a),
        runs_b=len(medians_b),
        run_spread=spread,
        runs_apart=apart,
    )


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (q), in the order given."""
    if not p_values:
        return []
    from scipy import stats

    return [float(q) for q in stats.false_discovery_control(list(p_values), method="bh")]
