"""Progress: an ETA from this session's pace, and without a terminal a status line on a timer,
also while a slow case runs (a fake clock and a short interval; no real-time assertions)."""

from __future__ import annotations

import io
import time
from types import SimpleNamespace
from typing import Any

from rich.console import Console

from portbench.progress import PLAIN_INTERVAL_S, CellProgress, format_duration
from portbench.results import Outcome


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _record(case: str, outcome: Outcome = Outcome.PASS) -> Any:
    return SimpleNamespace(case=case, outcome=outcome)


def _plain() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=300, color_system=None), out


def test_eta_follows_this_sessions_pace_not_the_earlier_sessions() -> None:
    clock = FakeClock()
    console, _ = _plain()
    progress = CellProgress(console, "jax/cpu/host", total=40, already=10, clock=clock)
    assert progress.eta_text() == "ETA ?"  # nothing recorded in this session yet
    clock.now += 30
    for n in range(3):
        progress.record(_record(f"c{n}"))
    # 3 cases in 30 s; 27 left: 270 s.
    assert progress.eta_s() == 270.0
    assert progress.eta_text() == "ETA 4:30"
    line = progress.status_line()
    assert line == (
        "jax/cpu/host: 13/40 cases (10 recorded before; this session: pass 3), 0:30 elapsed, "
        "ETA 4:30"
    )


def test_the_status_line_names_a_slow_case_while_it_runs() -> None:
    clock = FakeClock()
    console, _ = _plain()
    progress = CellProgress(console, "c", total=2, clock=clock)
    progress.case_started("m.slow::big")
    clock.now += 125
    assert progress.status_line().endswith("; running m.slow::big for 2:05")
    progress.record(_record("m.slow::big", Outcome.FAIL))
    assert "running" not in progress.status_line()
    assert "(fail 1)" in progress.status_line()


def test_without_a_terminal_a_line_comes_on_a_timer_even_with_no_record() -> None:
    console, out = _plain()
    assert not console.is_terminal
    with CellProgress(console, "jax/cpu/host", total=5, interval_s=0.01) as progress:
        progress.case_started("m.hang::forever")
        deadline = time.monotonic() + 30  # a bound on the wait, not a timing assertion
        while out.getvalue().count("\n") < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 4  # three from the timer, one at the end
    assert all(line.startswith("jax/cpu/host: 0/5 cases") for line in lines)
    assert "running m.hang::forever" in lines[0]


def test_the_plain_interval_keeps_every_gap_under_ten_seconds() -> None:
    assert PLAIN_INTERVAL_S < 10


def test_a_terminal_gets_the_live_bar_with_an_eta_and_no_timer_lines() -> None:
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=True, color_system=None)
    clock = FakeClock()
    with CellProgress(console, "cell", total=4, clock=clock, interval_s=0.01) as progress:
        clock.now += 10
        progress.record(_record("a"))
    text = out.getvalue()
    assert "ETA 0:30" in text
    assert "cases" not in text  # the plain status line is not printed beside the bar


def test_durations() -> None:
    assert format_duration(0) == "0:00"
    assert format_duration(61.4) == "1:01"
    assert format_duration(3723) == "1:02:03"
