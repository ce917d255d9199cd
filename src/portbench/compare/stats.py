"""Two samples of warm timings: is B slower than A, by how much, and how sure are we.

- Mann-Whitney U (two-sided, normal approximation with tie and continuity corrections),
  as asv does on its samples: no assumption about the shape of timing distributions.
- The ratio of medians B/A with a 95% percentile-bootstrap interval (fixed seed: the same
  two runs always give the same interval).
- Without samples (records written before schema 2), only the summary statistics are
  there: the ratio of medians, called significant when the interquartile ranges do not
  overlap, and marked as such.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["RatioEstimate", "mann_whitney_p", "ratio_from_samples", "ratio_from_summaries"]

#: Fewer samples per side than this and the rank test has no power: compare summaries.
MIN_SAMPLES = 5
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20231


@dataclass(frozen=True)
class RatioEstimate:
    ratio: float
    """Median of B over median of A: above 1 means B is slower."""
    low: float | None
    high: float | None
    """The ratio's 95% interval; None when compared on summaries."""
    p_value: float | None
    """Mann-Whitney's two-sided p; None when compared on summaries."""
    method: str
    """``samples`` (rank test and bootstrap) or ``summary`` (medians and IQRs only)."""
    significant: bool


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the Mann-Whitney U test (normal approximation)."""
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        raise ValueError("both samples need values")
    pooled = sorted([(value, 0) for value in a] + [(value, 1) for value in b])
    ranks = [0.0] * len(pooled)
    tie_term = 0.0
    start = 0
    while start < len(pooled):
        end = start
        while end + 1 < len(pooled) and pooled[end + 1][0] == pooled[start][0]:
            end += 1
        average = (start + end) / 2.0 + 1.0  # ranks are 1-based; ties share their mean
        for index in range(start, end + 1):
            ranks[index] = average
        size = end - start + 1
        tie_term += size**3 - size
        start = end + 1
    rank_sum_a = sum(rank for rank, (_, side) in zip(ranks, pooled, strict=True) if side == 0)
    u = rank_sum_a - n1 * (n1 + 1) / 2.0
    mean = n1 * n2 / 2.0
    n = n1 + n2
    variance = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)))
    if variance <= 0:
        return 1.0  # every value equal: no evidence of a difference
    z = (abs(u - mean) - 0.5) / math.sqrt(variance)
    return max(0.0, min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2.0))))


def ratio_from_samples(
    a: Sequence[float], b: Sequence[float], alpha: float = 0.05
) -> RatioEstimate:
    """Ratio of medians with a bootstrap interval and the rank test's verdict."""
    first, second = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ratio = float(np.median(second) / np.median(first))
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    pick_a = rng.integers(0, len(first), size=(BOOTSTRAP_RESAMPLES, len(first)))
    pick_b = rng.integers(0, len(second), size=(BOOTSTRAP_RESAMPLES, len(second)))
    ratios = np.median(second[pick_b], axis=1) / np.median(first[pick_a], axis=1)
    low, high = (float(v) for v in np.percentile(ratios, [2.5, 97.5]))
    p_value = mann_whitney_p(a, b)
    return RatioEstimate(ratio, low, high, p_value, "samples", p_value < alpha)


def ratio_from_summaries(
    median_a: float, q1_a: float, q3_a: float, median_b: float, q1_b: float, q3_b: float
) -> RatioEstimate:
    """Ratio of medians; significant only when the interquartile ranges are disjoint."""
    disjoint = q3_a < q1_b or q3_b < q1_a
    return RatioEstimate(median_b / median_a, None, None, None, "summary", disjoint)
