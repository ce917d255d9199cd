"""A live rich progress bar per cell, fed by polling the cell's results.jsonl.

Polling the file works identically for every backend (a container writes into a mounted
run directory), and keeps the supervisor the only writer of results.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

__all__ = ["CellProgress"]


class CellProgress:
    """Context manager: shows ``[cell] ███ 12/40 pass 10 fail 1 skip 1`` while a cell runs."""

    def __init__(self, console: Console, cell_id: str, results: Path, total: int) -> None:
        self.results = results
        self.total = total
        self.counts: Counter[str] = Counter()
        self._offset = 0
        self._stop = threading.Event()
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self._task = self._progress.add_task(cell_id, total=total, completed=0, counts="")
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _read_new(self) -> None:
        if not self.results.exists():
            return
        with open(self.results, "rb") as handle:
            handle.seek(self._offset)
            chunk = handle.read()
        # Only whole lines: a line being written is read on the next poll.
        end = chunk.rfind(b"\n") + 1
        self._offset += end
        for line in chunk[:end].splitlines():
            try:
                self.counts[json.loads(line)["outcome"]] += 1
            except (ValueError, KeyError, TypeError):
                continue
        text = " ".join(
            f"{k} {self.counts[k]}" for k in ("pass", "fail", "skip", "error") if self.counts[k]
        )
        self._progress.update(self._task, completed=sum(self.counts.values()), counts=text)

    def _poll(self) -> None:
        while not self._stop.wait(0.3):
            self._read_new()

    def __enter__(self) -> CellProgress:
        # Records already present (a resumed cell) are read on the first poll.
        self._progress.start()
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        self._read_new()
        self._progress.stop()
