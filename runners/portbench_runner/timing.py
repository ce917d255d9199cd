"""Cold and warm timing of one callable, synchronized, with standard-library statistics.

Warm sampling stops when the estimate is good enough (``mode: adaptive``, the default):

1. Calibration: one call is timed, and the block size (calls per sample) is estimated from
   it so that one block lasts ``block_min_s``; a block that still falls short is grown from
   what it took (``timeit``'s autorange doubles instead, which costs about one block more,
   and a block up to twice as long as needed).
2. Warm-up until the samples settle: blocks run and are discarded while they keep getting
   faster, that is until ``settle_blocks`` blocks in a row have a per-call time not more
   than ``settle_rel`` below the best block before them (the first blocks run slower while
   caches, allocators and thread pools settle). Those settled blocks are the first samples.
   The warm-up never lasts longer than ``warmup_s`` (calibration included), nor
   ``max_warm_s``: where the blocks have not settled by then, sampling starts afresh.
3. Sampling: once ``adaptive_min_samples`` blocks are in, it stops as soon as the
   distribution-free 95% confidence interval of the median is within ``ci_target_rel`` of
   the median (as pyperf and torch.utils.benchmark's adaptive_autorange stop on what they
   see), or at a cap: ``adaptive_budget_s`` of sampling, ``adaptive_max_samples``, or
   ``max_warm_s``. A capped case whose interval is still wider than the target is marked
   noisy. The floor of 6 is the smallest number of samples whose extremes bound the median
   with at least 95% confidence (1 - 2 * 0.5**6 = 96.9%), which is what the interval test
   then asks of them.

``mode: none`` times the cold call only (``--no-timing``: a sweep's outcomes, fast).

``mode: fixed`` calibrates by doubling and samples until ``warm_budget_s`` is spent or
``max_samples`` are in, with no warm-up (portbench before adaptive stopping), for
comparisons. Either way the record says why it stopped, how wide the interval was, and
keeps the per-call times of the samples.

A cell's wall-time cap (the plan's ``cell_budget_s``) reaches a case as ``warm_cap_s``: the
warm phase's share of what the cell has left per remaining case. It lowers ``max_warm_s``,
``warm_budget_s`` and ``adaptive_budget_s`` to itself; below ``MIN_WARM_CAP_S`` the case is timed cold only. The timing
then records the cap it ran under.
"""

from __future__ import annotations

import math
import statistics
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

__all__ = [
    "DEFAULT_TIMING",
    "MIN_WARM_CAP_S",
    "TimingSettings",
    "median_ci_rel",
    "summarize",
    "time_call",
]

#: Settings a plan may override under ``"timing"``.
TimingSettings = Dict[str, Any]

DEFAULT_TIMING: TimingSettings = {
    # adaptive: stop once the median is known to ci_target_rel; fixed: spend the budget.
    "mode": "adaptive",
    "ci_target_rel": 0.02,
    "adaptive_min_samples": 6,
    # adaptive: calibration, then discarded blocks until a block is no more than settle_rel
    # faster than the best before it (at most warmup_s in all), then at most this many
    # samples and this much sampling time (pyperf's default is 60 values; asv's about ten
    # 10 ms samples).
    "settle_rel": 0.02,
    "settle_blocks": 2,
    "warmup_s": 0.01,
    "adaptive_max_samples": 60,
    "adaptive_budget_s": 0.1,
    # fixed: warm samples are taken until this much time was spent (and min_samples)...
    "warm_budget_s": 0.25,
    "min_samples": 3,
    "max_samples": 200,
    # ...but never longer than this, however slow the call.
    "max_warm_s": 5.0,
    # One sample is a block of calls lasting at least this long, so timer overhead
    # stays small next to microsecond ops (as timeit and blocked_autorange do).
    "block_min_s": 0.0005,
    "max_calls_per_block": 100000,
    # A measurement whose IQR exceeds this share of its median is flagged as noisy.
    "noisy_iqr_ratio": 0.1,
}
#: Below this cap a warm phase could not calibrate one block: the case is timed cold only.
MIN_WARM_CAP_S = 0.01
_Z95 = 1.959964
MAX_SAMPLES_KEPT = 1000


def median_ci_rel(values: List[float]) -> Optional[float]:
    """Half-width of the median's 95% confidence interval over the median, or None.

    Distribution-free: the interval runs between the order statistics at ranks about
    n/2 -+ 1.96 sqrt(n)/2 (the binomial's normal approximation), so it needs no assumption
    about the shape of the timings. None below 3 values or for a zero median.
    """
    n = len(values)
    if n < 3:
        return None
    ordered = sorted(values)
    median = statistics.median(ordered)
    if median <= 0:
        return None
    spread = _Z95 * math.sqrt(n) / 2.0
    # 1-based ranks j = floor(n/2 - s) and k = ceil(1 + n/2 + s), made 0-based and clamped.
    low = max(0, math.floor(n / 2.0 - spread) - 1)
    high = min(n - 1, math.ceil(1 + n / 2.0 + spread) - 1)
    return (ordered[high] - ordered[low]) / 2.0 / median


def summarize(
    samples_s: List[float],
    calls_per_sample: int,
    noisy_ratio: float,
    stopped_by: Optional[str] = None,
    ci_target_rel: Optional[float] = None,
) -> Dict[str, Any]:
    """Median, quartiles, minimum, mean of per-call times (ms) from per-sample seconds, with
    the median's interval width, why sampling stopped, and the per-call samples."""
    per_call_ms = [s * 1000.0 / calls_per_sample for s in samples_s]
    median = statistics.median(per_call_ms)
    if len(per_call_ms) >= 2:
        q1, _, q3 = statistics.quantiles(per_call_ms, n=4, method="inclusive")
    else:
        q1 = q3 = median
    iqr = q3 - q1
    ci = median_ci_rel(per_call_ms)
    wide = (
        ci_target_rel is not None
        and stopped_by not in (None, "converged")
        and (ci is None or ci > ci_target_rel)
    )
    return {
        "median_ms": median,
        "q1_ms": q1,
        "q3_ms": q3,
        "iqr_ms": iqr,
        "min_ms": min(per_call_ms),
        "mean_ms": statistics.fmean(per_call_ms),
        "samples": len(per_call_ms),
        "calls_per_sample": calls_per_sample,
        # Noisy: a wide spread, or a cap reached before the interval was as narrow as asked.
        "noisy": bool(median > 0 and iqr / median > noisy_ratio) or bool(wide),
        "ci95_rel": ci,
        "stopped_by": stopped_by,
        # Bounded in the record (schema 2 keeps at most this many).
        "samples_ms": per_call_ms[:MAX_SAMPLES_KEPT],
    }


def _run_block(
    call: Callable[[], Any], sync: Callable[[Any], None], n: int, clock: Callable[[], float]
) -> float:
    start = clock()
    out = None
    for _ in range(n):
        out = call()
    # One sync per block: asynchronous devices finish the whole block before it returns.
    sync(out)
    return clock() - start


def _calibrate_doubling(
    call: Callable[[], Any],
    sync: Callable[[Any], None],
    conf: TimingSettings,
    clock: Callable[[], float],
) -> int:
    """Calls per block, doubling from one (as timeit's autorange does) until a block lasts
    ``block_min_s``."""
    n = 1
    calibration_s = 0.0
    while True:
        block_s = _run_block(call, sync, n, clock)
        calibration_s += block_s
        if block_s >= conf["block_min_s"] or n >= conf["max_calls_per_block"]:
            return n
        if calibration_s >= conf["max_warm_s"]:
            return n
        n = int(min(conf["max_calls_per_block"], n * 2))


def _calibrate_estimating(
    call: Callable[[], Any],
    sync: Callable[[Any], None],
    conf: TimingSettings,
    clock: Callable[[], float],
) -> Tuple[int, List[Tuple[int, float]]]:
    """Calls per block, estimated from the time one call takes (with a tenth to spare) and
    grown from each block that still falls short; also the (calls, seconds) of every block."""
    block_min = float(conf["block_min_s"])
    most = int(conf["max_calls_per_block"])
    n = 1
    blocks: List[Tuple[int, float]] = []
    while True:
        block_s = _run_block(call, sync, n, clock)
        blocks.append((n, block_s))
        if block_s >= block_min or n >= most:
            return n, blocks
        if sum(b for _, b in blocks) >= conf["max_warm_s"]:
            return n, blocks
        # Sized from what this block took (a tenth to spare); a block too short to time at
        # all doubles.
        wanted = math.ceil(n * 1.1 * block_min / block_s) if block_s > 0 else n * 2
        n = int(min(most, max(n + 1, wanted)))


def _warm_up(
    call: Callable[[], Any],
    sync: Callable[[Any], None],
    conf: TimingSettings,
    clock: Callable[[], float],
    n: int,
    blocks: List[Tuple[int, float]],
) -> List[float]:
    """Discard blocks while they keep getting faster; return the settled blocks, which are
    the first samples.

    A block is settled when its per-call time is not more than ``settle_rel`` below the best
    block before it; ``settle_blocks`` settled blocks in a row end the warm-up (a faster
    block in between starts the count again). Calibration blocks of ``n`` calls count as
    blocks before; smaller ones are left out (the timer's own cost weighs on them). The
    warm-up stops at ``warmup_s`` since calibration began (and at ``max_warm_s``) whether
    or not the blocks settled; then no block is kept.
    """
    best = min((b / k for k, b in blocks if k == n), default=None)
    warmed_s = sum(b for _, b in blocks)
    cap = min(float(conf["warmup_s"]), float(conf["max_warm_s"]))
    floor = 1.0 - float(conf["settle_rel"])
    wanted = int(conf["settle_blocks"])
    settled: List[float] = []
    while warmed_s < cap:
        block_s = _run_block(call, sync, n, clock)
        warmed_s += block_s
        per_call = block_s / n
        if best is not None and per_call >= floor * best:
            settled.append(block_s)
            if len(settled) >= wanted:
                return settled
        else:
            settled = []
        best = per_call if best is None else min(best, per_call)
    return []


def time_call(
    call: Callable[[], Any],
    sync: Callable[[Any], None],
    settings: Optional[TimingSettings] = None,
    warm: bool = True,
    clock: Callable[[], float] = time.perf_counter,
) -> Tuple[Any, Dict[str, Any]]:
    """Run ``call`` once cold, then (if ``warm``) in timed blocks; return (cold output, timing).

    The cold call is the first synchronized call of this case in the worker, so any
    compilation falls inside it, as it did in the study. Its output is returned for
    checking; warm calls' outputs are discarded.
    """
    conf = dict(DEFAULT_TIMING)
    if settings:
        conf.update(settings)
    cap = conf.pop("warm_cap_s", None)
    if cap is not None:
        cap = max(0.0, float(cap))
        conf["max_warm_s"] = min(float(conf["max_warm_s"]), cap)
        conf["warm_budget_s"] = min(float(conf["warm_budget_s"]), cap)
        conf["adaptive_budget_s"] = min(float(conf["adaptive_budget_s"]), cap)
    # mode none (--no-timing): outcomes and cold calls only, as the census's support runs.
    cold_only = conf.get("mode") == "none"
    warm = warm and not cold_only
    start = clock()
    output = call()
    sync(output)
    cold_s = clock() - start
    timing: Dict[str, Any] = {"cold_ms": cold_s * 1000.0, "warm": None}
    if cold_only:
        timing["mode"] = "none"
    if cap is not None and warm:
        timing["warm_cap_s"] = cap
    if not warm or (cap is not None and cap < MIN_WARM_CAP_S):
        return output, timing

    warm_started = clock()
    adaptive = conf.get("mode", "adaptive") == "adaptive"
    if adaptive:
        n, blocks = _calibrate_estimating(call, sync, conf, clock)
        samples = _warm_up(call, sync, conf, clock, n, blocks)
    else:
        n = _calibrate_doubling(call, sync, conf, clock)
        samples = []
    target = float(conf["ci_target_rel"])
    floor = int(conf["adaptive_min_samples"])
    max_samples = int(conf["adaptive_max_samples"] if adaptive else conf["max_samples"])
    budget_s = float(conf["adaptive_budget_s"] if adaptive else conf["warm_budget_s"])
    spent = sum(samples)
    stopped_by = "max_samples"
    while len(samples) < max_samples:
        block_s = _run_block(call, sync, n, clock)
        samples.append(block_s)
        spent += block_s
        if spent >= conf["max_warm_s"]:
            stopped_by = "max_time"
            break
        if adaptive and len(samples) >= floor:
            ci = median_ci_rel(samples)
            if ci is not None and ci <= target:
                stopped_by = "converged"
                break
        if spent >= budget_s and len(samples) >= conf["min_samples"]:
            stopped_by = "max_time" if adaptive else "budget"
            break
    timing["warm"] = summarize(
        samples, n, conf["noisy_iqr_ratio"], stopped_by, target if adaptive else None
    )
    # The whole warm phase, calibration included: what adaptive stopping saves.
    timing["warm_s"] = clock() - warm_started
    return output, timing
