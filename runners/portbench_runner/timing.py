"""Cold and warm timing of one callable, synchronized, with standard-library statistics."""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

__all__ = ["DEFAULT_TIMING", "TimingSettings", "summarize", "time_call"]

#: Settings a plan may override under ``"timing"``.
TimingSettings = Dict[str, float]

DEFAULT_TIMING: TimingSettings = {
    # Warm samples are taken until this much time was spent (and min_samples reached)...
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


def summarize(samples_s: List[float], calls_per_sample: int, noisy_ratio: float) -> Dict[str, Any]:
    """Median, quartiles, minimum, mean of per-call times (ms) from per-sample seconds."""
    per_call_ms = [s * 1000.0 / calls_per_sample for s in samples_s]
    median = statistics.median(per_call_ms)
    if len(per_call_ms) >= 2:
        q1, _, q3 = statistics.quantiles(per_call_ms, n=4, method="inclusive")
    else:
        q1 = q3 = median
    iqr = q3 - q1
    return {
        "median_ms": median,
        "q1_ms": q1,
        "q3_ms": q3,
        "iqr_ms": iqr,
        "min_ms": min(per_call_ms),
        "mean_ms": statistics.fmean(per_call_ms),
        "samples": len(per_call_ms),
        "calls_per_sample": calls_per_sample,
        "noisy": bool(median > 0 and iqr / median > noisy_ratio),
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
    start = clock()
    output = call()
    sync(output)
    cold_s = clock() - start
    timing: Dict[str, Any] = {"cold_ms": cold_s * 1000.0, "warm": None}
    if not warm:
        return output, timing

    # Calibrate the block size by doubling (as timeit's autorange does) until one block
    # lasts block_min_s; these blocks are the warm-up and absorb lazy initialization.
    n = 1
    calibration_s = 0.0
    while True:
        block_s = _run_block(call, sync, n, clock)
        calibration_s += block_s
        if block_s >= conf["block_min_s"] or n >= conf["max_calls_per_block"]:
            break
        if calibration_s >= conf["max_warm_s"]:
            break
        n = int(min(conf["max_calls_per_block"], n * 2))
    samples: List[float] = []
    spent = 0.0
    while len(samples) < conf["max_samples"]:
        block_s = _run_block(call, sync, n, clock)
        samples.append(block_s)
        spent += block_s
        if spent >= conf["max_warm_s"]:
            break
        if spent >= conf["warm_budget_s"] and len(samples) >= conf["min_samples"]:
            break
    timing["warm"] = summarize(samples, n, conf["noisy_iqr_ratio"])
    return output, timing
