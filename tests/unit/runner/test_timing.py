"""Timing logic with a fake clock: block calibration, budgets, statistics."""

from __future__ import annotations

import pytest

from portbench_runner.timing import DEFAULT_TIMING, median_ci_rel, summarize, time_call


class FakeClock:
    """Each call of the timed function advances the clock by ``cost_s``."""

    def __init__(self, cost_s: float) -> None:
        self.now = 0.0
        self.cost_s = cost_s
        self.calls = 0

    def __call__(self) -> float:
        return self.now

    def work(self) -> str:
        self.calls += 1
        self.now += self.cost_s
        return "out"


def test_cold_call_output_is_returned_and_timed() -> None:
    clock = FakeClock(0.002)
    out, timing = time_call(clock.work, lambda _: None, warm=False, clock=clock)
    assert out == "out"
    assert timing == {"cold_ms": pytest.approx(2.0), "warm": None}
    assert clock.calls == 1


def test_fast_calls_are_blocked_until_a_block_lasts_block_min() -> None:
    clock = FakeClock(1e-6)
    _, timing = time_call(
        clock.work, lambda _: None, {"block_min_s": 1e-3, "warm_budget_s": 0.01}, clock=clock
    )
    warm = timing["warm"]
    assert warm["calls_per_sample"] >= 1000
    assert warm["median_ms"] == pytest.approx(0.001)
    assert warm["samples"] >= 3


def test_slow_calls_stop_at_max_warm() -> None:
    clock = FakeClock(2.0)
    _, timing = time_call(
        clock.work, lambda _: None, {"max_warm_s": 5.0, "warm_budget_s": 0.25}, clock=clock
    )
    assert timing["warm"]["samples"] <= 3
    assert timing["warm"]["calls_per_sample"] == 1


def test_sync_runs_once_per_block_on_the_last_output() -> None:
    clock = FakeClock(1e-4)
    synced: list[str] = []
    time_call(clock.work, synced.append, {"block_min_s": 1e-3, "warm_budget_s": 0.005}, clock=clock)
    # Far fewer syncs than calls: one per block (plus the cold call).
    assert 1 < len(synced) < clock.calls


def test_summary_flags_noisy_measurements() -> None:
    steady = summarize([1.0, 1.0, 1.01, 1.0], 1, 0.1)
    noisy = summarize([1.0, 2.0, 1.0, 3.0], 1, 0.1)
    assert steady["noisy"] is False
    assert noisy["noisy"] is True
    assert noisy["median_ms"] == pytest.approx(1500.0)
    assert noisy["min_ms"] == pytest.approx(1000.0)


class SpreadClock(FakeClock):
    """A clock whose calls cost ``cost_s`` times a repeating pattern of factors."""

    def __init__(self, cost_s: float, factors: list[float]) -> None:
        super().__init__(cost_s)
        self.factors = factors

    def work(self) -> str:
        self.calls += 1
        self.now += self.cost_s * self.factors[self.calls % len(self.factors)]
        return "out"


def test_a_quiet_case_stops_early_with_a_narrow_interval() -> None:
    clock = FakeClock(1e-3)
    _, timing = time_call(clock.work, lambda _: None, {"adaptive_budget_s": 10.0}, clock=clock)
    warm = timing["warm"]
    assert warm["stopped_by"] == "converged"
    # The floor: identical samples converge at once.
    assert warm["samples"] == DEFAULT_TIMING["adaptive_min_samples"]
    assert warm["ci95_rel"] == pytest.approx(0.0)
    assert not warm["noisy"]
    assert len(warm["samples_ms"]) == warm["samples"]


def test_a_noisy_case_hits_the_cap_and_is_marked() -> None:
    # Calls alternate between 1x and 3x their cost: the median never settles to 2%.
    clock = SpreadClock(1e-3, [1.0, 3.0, 1.0, 3.0, 3.0])
    settings = {"adaptive_budget_s": 10.0, "adaptive_max_samples": 60, "block_min_s": 0.0}
    _, timing = time_call(clock.work, lambda _: None, settings, clock=clock)
    warm = timing["warm"]
    assert warm["stopped_by"] == "max_samples"
    assert warm["samples"] == 60
    assert warm["ci95_rel"] > 0.02
    assert warm["noisy"]


def test_fixed_mode_spends_the_budget() -> None:
    clock = FakeClock(1e-3)
    settings = {"mode": "fixed", "warm_budget_s": 0.05, "block_min_s": 0.0}
    _, timing = time_call(clock.work, lambda _: None, settings, clock=clock)
    assert timing["warm"]["stopped_by"] == "budget"
    assert timing["warm"]["samples"] == 50


def test_median_interval_is_none_when_it_cannot_be_told() -> None:
    assert median_ci_rel([1.0, 1.0]) is None
    assert median_ci_rel([0.0, 0.0, 0.0]) is None
    assert median_ci_rel([1.0] * 5 + [2.0] * 5) > 0.2


class SettlingClock(FakeClock):
    """Calls cost ``cost_s`` times a factor that falls by ``step`` per call from ``start``
    to 1 (caches and pools settling), then stays there."""

    def __init__(self, cost_s: float, start: float, step: float) -> None:
        super().__init__(cost_s)
        self.start = start
        self.step = step

    def work(self) -> str:
        self.calls += 1
        self.now += self.cost_s * max(1.0, self.start - self.step * (self.calls - 1))
        return "out"


def test_adaptive_warms_up_until_the_samples_settle_and_fixed_mode_does_not() -> None:
    # Calls get 10% faster per call for ten calls, then hold: the warm-up discards the
    # falling blocks, so the adaptive median is the settled cost.
    settings = {"block_min_s": 0.0, "warmup_s": 1.0}
    clock = SettlingClock(1e-3, 2.0, 0.1)
    _, timing = time_call(clock.work, lambda _: None, settings, clock=clock)
    assert timing["warm"]["median_ms"] == pytest.approx(1.0)
    assert timing["warm"]["samples_ms"][0] == pytest.approx(1.0)
    # It stopped warming up once settled: far fewer calls than its 1 s cap allowed.
    assert clock.calls < 40
    # Without the warm-up, the first samples are the slow ones (fixed mode, as before).
    clock = SettlingClock(1e-3, 2.0, 0.1)
    fixed = {**settings, "mode": "fixed", "max_samples": 12, "warm_budget_s": 10.0}
    _, timing = time_call(clock.work, lambda _: None, fixed, clock=clock)
    assert timing["warm"]["samples_ms"][0] > 1.5


def test_settled_blocks_are_the_first_samples() -> None:
    # A steady call: calibration (one call), then two settled blocks, which are kept as the
    # first samples, then the rest of the floor; nothing else runs.
    clock = FakeClock(1e-3)
    _, timing = time_call(clock.work, lambda _: None, {"block_min_s": 0.0}, clock=clock)
    floor = DEFAULT_TIMING["adaptive_min_samples"]
    assert timing["warm"]["samples"] == floor
    assert clock.calls == 1 + 1 + floor  # cold, calibration, samples


class FallingClock(FakeClock):
    """Each call costs 10% less than the one before, down to ``cost_s``."""

    def __init__(self, cost_s: float, start: float) -> None:
        super().__init__(cost_s)
        self.factor = start

    def work(self) -> str:
        self.calls += 1
        self.now += self.cost_s * max(1.0, self.factor)
        self.factor *= 0.9
        return "out"


def test_a_warm_up_that_never_settles_stops_at_its_cap() -> None:
    # 10 ms falling 10% per call: the blocks are still getting faster when the 50 ms
    # warm-up cap is reached, so sampling starts afresh there, on a still-falling series.
    clock = FallingClock(1e-5, 1000.0)
    synced: list[str] = []
    settings = {"block_min_s": 0.0, "warmup_s": 0.05, "adaptive_budget_s": 10.0}
    _, timing = time_call(clock.work, synced.append, settings, clock=clock)
    warm = timing["warm"]
    assert warm["samples_ms"][0] > 2 * warm["min_ms"]
    warm_up_blocks = len(synced) - 1 - warm["samples"]  # the cold call, then warm blocks
    # The calibration block (9 ms, the cold call took 10) and the warm-up's 8.1, 7.3, ... ms:
    # the 50 ms cap is passed on the eighth block.
    assert warm_up_blocks == 8


def test_calibration_estimates_the_block_from_one_call() -> None:
    # A 1 us call and 1 ms blocks: one call, then a block sized from it (about 1100 calls),
    # not the eleven doublings timeit's autorange would run.
    clock = FakeClock(1e-6)
    synced: list[str] = []
    _, timing = time_call(clock.work, synced.append, {"block_min_s": 1e-3}, clock=clock)
    calls = timing["warm"]["calls_per_sample"]
    assert 1000 <= calls <= 1200
    # One sync per block: cold, 2 calibration blocks, the warm-up's and the samples.
    assert len(synced) == 1 + 2 + timing["warm"]["samples"]


def test_adaptive_caps_are_its_own_and_slow_calls_stop_at_its_budget() -> None:
    # 40 ms calls varying by 20%: the adaptive budget (0.1 s) stops after 3 samples, where
    # the fixed budget (0.25 s) takes 7; three values spanning 20% are no 2% interval: marked.
    clock = SpreadClock(0.04, [1.0, 1.2])
    _, timing = time_call(clock.work, lambda _: None, {"block_min_s": 0.0}, clock=clock)
    warm = timing["warm"]
    assert warm["stopped_by"] == "max_time" and warm["samples"] == 3
    assert warm["ci95_rel"] > 0.02 and warm["noisy"]
    clock = FakeClock(0.04)
    _, timing = time_call(
        clock.work, lambda _: None, {"block_min_s": 0.0, "mode": "fixed"}, clock=clock
    )
    assert timing["warm"]["samples"] == 7


def test_a_cell_budget_cap_shortens_the_warm_phase_and_is_recorded() -> None:
    clock = FakeClock(0.4)
    _, free = time_call(clock.work, lambda _: None, {"max_warm_s": 5.0}, clock=clock)
    clock = FakeClock(0.4)
    _, capped = time_call(
        clock.work, lambda _: None, {"max_warm_s": 5.0, "warm_cap_s": 0.5}, clock=clock
    )
    assert "warm_cap_s" not in free
    assert capped["warm_cap_s"] == 0.5
    assert capped["warm"]["samples"] < free["warm"]["samples"]
    assert capped["warm_s"] <= 0.5 + 2 * 0.4  # calibration and one block may overrun the cap


def test_a_spent_cell_budget_leaves_only_the_cold_call() -> None:
    clock = FakeClock(0.001)
    out, timing = time_call(clock.work, lambda _: None, {"warm_cap_s": 0.0}, clock=clock)
    assert out == "out" and clock.calls == 1
    assert timing == {"cold_ms": pytest.approx(1.0), "warm": None, "warm_cap_s": 0.0}
