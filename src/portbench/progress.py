"""A live rich progress bar per cell, fed by the host's writer as it stores each record."""

from __future__ import annotations

from collections import Counter
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from .results import CaseRecord

__all__ = ["CellProgress"]


class CellProgress:
    """Context manager: shows ``[cell] ███ 12/40 pass 10 fail 1 skip 1`` while a cell runs."""

    def __init__(self, console: Console, cell_id: str, total: int, already: int = 0) -> None:
        self.total = total
        self.counts: Counter[str] = Counter()
        self._already = already
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self._task = self._progress.add_task(cell_id, total=total, completed=already, counts="")

    def record(self, record: CaseRecord) -> None:
        """One more stored record."""
        self.counts[record.outcome.value] += 1
        text = " ".join(
            f"{k} {self.counts[k]}" for k in ("pass", "fail", "skip", "error") if self.counts[k]
        )
        self._progress.update(
            self._task, completed=self._already + sum(self.counts.values()), counts=text
        )

    def __enter__(self) -> CellProgress:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()
