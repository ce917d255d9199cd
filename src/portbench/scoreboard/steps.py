"""Where a series of timings changed level: a step detector over the whole series, after
asv's idea (fit the series with a piecewise-constant function, paying a penalty per step).

Two releases compared alone tell whether they differ; over a whole series the question is
where the level changed, so that drift and one noisy release are not read as steps. Here:

- values are the logarithms of the medians (a step is a ratio, the same at 1 ms and 1 s);
- a segmentation minimises the sum over segments of each value's absolute distance to its
  segment's median (robust to a single outlier), plus ``penalty`` per segment: found
  exactly by dynamic programming (series are releases: tens of points);
- the penalty scales with the series' own noise, estimated robustly from the differences
  between neighbouring points (most neighbours differ by noise only);
- a boundary whose two levels differ by less than ``min_ratio`` is merged away: a step must
  also be worth reporting, as ``compare``'s threshold says.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MIN_RATIO", "Step", "detect_steps", "segments"]

#: A step smaller than this ratio is not reported (compare's default threshold).
MIN_RATIO = 1.10
#: Noise below this (2%, in log terms) is taken as this: timings are never that steady.
NOISE_FLOOR = math.log(1.02)
#: Penalty per segment, in units of the series' noise.
PENALTY_NOISE = 4.0


@dataclass(frozen=True)
class Step:
    index: int
    """The first point of the new level."""
    before: float
    after: float
    """The two levels (medians of their segments), in the series' own unit."""

    @property
    def ratio(self) -> float:
        return self.after / self.before if self.before else math.inf


def _cost(values: Sequence[float]) -> float:
    middle = statistics.median(values)
    return sum(abs(v - middle) for v in values)


def segments(values: Sequence[float], penalty: float) -> list[tuple[int, int]]:
    """The best segmentation of ``values`` as (start, end) pairs, end exclusive: the one
    minimising the segments' absolute deviations from their medians plus ``penalty`` each."""
    n = len(values)
    if n == 0:
        return []
    best = [0.0] + [math.inf] * n
    cut = [0] * (n + 1)
    for end in range(1, n + 1):
        for start in range(end):
            total = best[start] + _cost(values[start:end]) + penalty
            if total < best[end]:
                best[end], cut[end] = total, start
    out: list[tuple[int, int]] = []
    end = n
    while end > 0:
        out.append((cut[end], end))
        end = cut[end]
    return out[::-1]


def _noise(logs: Sequence[float]) -> float:
    if len(logs) < 3:
        return NOISE_FLOOR
    differences = [abs(b - a) for a, b in zip(logs, logs[1:], strict=False)]
    # The median absolute difference of neighbours, scaled to a standard deviation of one
    # point (a difference of two points has sqrt(2) times its spread).
    return max(1.4826 * statistics.median(differences) / math.sqrt(2), NOISE_FLOOR)


def detect_steps(values: Sequence[float], min_ratio: float = MIN_RATIO) -> list[Step]:
    """The steps of a series of positive timings, in order (none for fewer than 2 points)."""
    positive = [v for v in values if v > 0]
    if len(positive) != len(values) or len(values) < 2:
        return []
    logs = [math.log(v) for v in values]
    parts = segments(logs, PENALTY_NOISE * _noise(logs))
    threshold = math.log(min_ratio)
    merged = True
    while merged and len(parts) > 1:
        merged = False
        levels = [statistics.median(logs[a:b]) for a, b in parts]
        gaps = [abs(levels[i + 1] - levels[i]) for i in range(len(parts) - 1)]
        smallest = min(range(len(gaps)), key=gaps.__getitem__)
        if gaps[smallest] < threshold:
            a, _ = parts[smallest]
            _, b = parts[smallest + 1]
            parts[smallest : smallest + 2] = [(a, b)]
            merged = True
    levels = [math.exp(statistics.median(logs[a:b])) for a, b in parts]
    return [Step(parts[i + 1][0], levels[i], levels[i + 1]) for i in range(len(parts) - 1)]
