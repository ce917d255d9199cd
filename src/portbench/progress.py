"""A cell's progress while it runs, fed by the host's writer as it stores each record.

In a terminal: a live rich bar with counts, elapsed time and an ETA. Without one (CI logs,
output piped to a file), a live bar shows nothing until it ends, so a timer prints one plain
status line every :data:`PLAIN_INTERVAL_S` instead, also while a slow case runs and no record
arrives: a log that stays silent looks like a hang, and some CI systems kill silent jobs.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from portbench_runner.contract import shown

from .results import CaseRecord

__all__ = ["PLAIN_INTERVAL_S", "CellProgress", "format_duration"]

#: Seconds between plain status lines; under 10 so that a late timer still keeps every gap
#: in a log below 10 s.
PLAIN_INTERVAL_S = 9.0
OUTCOMES = ("pass", "fail", "skip", "error")


def format_duration(seconds: float) -> str:
    """``1:02:03``, ``4:05``: hours only where there are any."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class _EtaColumn(ProgressColumn):
    """The cell's ETA, worked out afresh at each refresh (the bar refreshes between records)."""

    def __init__(self, owner: CellProgress) -> None:
        super().__init__()
        self._owner = owner

    def render(self, task: Task) -> Text:
        return Text(self._owner.eta_text(), style="progress.remaining")


class CellProgress:
    """Context manager: ``[cell] ███ 12/40 pass 10 fail 1 skip 1 0:42 ETA 1:58`` while a
    cell runs; one status line per interval where the console is no terminal.

    ``clock`` and ``interval_s`` are there for tests (a fake clock, a short interval).
    """

    def __init__(
        self,
        console: Console,
        cell_id: str,
        total: int,
        already: int = 0,
        *,
        interval_s: float = PLAIN_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.cell_id = cell_id
        self.total = total
        self.counts: Counter[str] = Counter()
        self.interval_s = interval_s
        self._already = already
        self._clock = clock
        self._started = clock()
        self._running: tuple[str, float] | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None
        self._live = console.is_terminal
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            _EtaColumn(self),
            console=console,
            transient=False,
        )
        self._task = self._progress.add_task(
            cell_id, total=total, completed=already, counts=self._counts_text()
        )

    # -- what the writer calls -----------------------------------------------------------
    def record(self, record: CaseRecord) -> None:
        """One more stored record."""
        with self._lock:
            self.counts[record.outcome.value] += 1
            if self._running is not None and self._running[0] == record.case:
                self._running = None
            done, text = self._already + sum(self.counts.values()), self._counts_text()
        self._progress.update(self._task, completed=done, counts=text)

    def case_started(self, case_id: str) -> None:
        """The cell began ``case_id`` (named in the status line while it runs)."""
        with self._lock:
            self._running = (case_id, self._clock())

    # -- what is shown -------------------------------------------------------------------
    def _counts_text(self) -> str:
        """This session's outcomes; after a resume, the cases recorded before it first, so
        that the count adds up (12/40 = 3 before + 9 now) and agrees with the summary,
        which counts every record of the cell."""
        counts = " ".join(f"{k} {self.counts[k]}" for k in OUTCOMES if self.counts[k])
        if not self._already:
            return counts
        before = f"{self._already} recorded before"
        return f"{before}; this session: {counts}" if counts else before

    def eta_s(self) -> float | None:
        """Seconds left at this session's pace so far; None before its first record."""
        with self._lock:
            done = sum(self.counts.values())
            elapsed = self._clock() - self._started
        left = self.total - self._already - done
        if left <= 0:
            return 0.0
        if done == 0:
            return None
        return elapsed / done * left

    def eta_text(self) -> str:
        eta = self.eta_s()
        return "ETA ?" if eta is None else f"ETA {format_duration(eta)}"

    def status_line(self) -> str:
        """``cell: 12/40 cases (pass 10 fail 2), 0:42 elapsed, ETA 1:58; running X for 0:31``."""
        eta = self.eta_text()
        with self._lock:
            now = self._clock()
            done = self._already + sum(self.counts.values())
            counts = self._counts_text()
            running = self._running
        line = f"{self.cell_id}: {done}/{self.total} cases"
        line += f" ({counts})" if counts else ""
        line += f", {format_duration(now - self._started)} elapsed, {eta}"
        if running is not None:
            line += f"; running {shown(running[0])} for {format_duration(now - running[1])}"
        return line

    def tick(self) -> None:
        """Print the status line (plain output)."""
        self.console.print(self.status_line(), markup=False, highlight=False, soft_wrap=True)

    def _every_interval(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.tick()

    # -- lifecycle -----------------------------------------------------------------------
    def __enter__(self) -> CellProgress:
        self._started = self._clock()
        if self._live:
            self._progress.start()
        else:
            self._timer = threading.Thread(
                target=self._every_interval, name="portbench-progress", daemon=True
            )
            self._timer.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._live:
            self._progress.stop()
            return
        self._stop.set()
        if self._timer is not None:
            self._timer.join()
        self.tick()  # where the cell ended
