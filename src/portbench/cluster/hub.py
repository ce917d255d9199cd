"""Progress from the nodes to the head's terminal while cells run.

Nodes post small events (a cell started on a node, N cases recorded, finished) to one Ray
actor that lives on the head's own node; the head drains it twice a second and prints.
Events are untrusted: only known kinds with bounded fields are shown, escaped.
"""

from __future__ import annotations

import re
import time
from typing import Any

from rich.console import Console
from rich.markup import escape

__all__ = ["EventLog", "ProgressHub", "make_hub"]

#: At most this many events wait in the hub; a node that floods it loses its oldest ones.
MAX_EVENTS = 10_000
#: A cell's "N cases recorded" line is printed at most this often.
PROGRESS_LINE_EVERY_S = 2.0
_TOKEN = re.compile(r"^[0-9a-f]{1,16}$")


class ProgressHub:
    """The actor's class: a bounded queue of events."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def post(self, event: Any) -> None:
        self.events.append(event)
        if len(self.events) > MAX_EVENTS:
            del self.events[: len(self.events) - MAX_EVENTS]

    def drain(self) -> list[Any]:
        events, self.events = self.events, []
        return events


def make_hub() -> Any:
    """The hub actor, pinned to the node the head runs on (so it lives as long as the head)."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    here = ray.get_runtime_context().get_node_id()
    actor = ray.remote(num_cpus=0)(ProgressHub)
    return actor.options(
        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=here, soft=False)
    ).remote()


def _text(value: Any, limit: int = 80) -> str:
    return escape(str(value)[:limit])


class EventLog:
    """What the head knows of each cell from its events, and the lines it prints."""

    def __init__(self, console: Console, totals: dict[str, int]) -> None:
        self.console = console
        self.totals = totals
        self.node: dict[str, str] = {}
        self.attempt: dict[str, str] = {}
        self.started_at: dict[str, float] = {}
        self.attempts: dict[str, int] = {}
        self._shown: dict[str, float] = {}

    def handle(self, events: list[Any]) -> None:
        for event in events:
            if not isinstance(event, dict) or not isinstance(event.get("cell"), str):
                continue
            cell = event["cell"]
            if cell not in self.totals:
                continue
            node = _text(event.get("node"), 64)
            attempt = event.get("attempt")
            kind = event.get("kind")
            if kind == "started" and isinstance(attempt, str) and _TOKEN.match(attempt):
                self.attempts[cell] = self.attempts.get(cell, 0) + 1
                again = " (again: the node that had it is gone)" if self.attempts[cell] > 1 else ""
                self.node[cell], self.attempt[cell] = node, attempt
                stamp = event.get("t")
                self.started_at[cell] = (
                    float(stamp) if isinstance(stamp, (int, float)) else time.time()
                )
                self.console.print(f"[bold]{cell}[/] started on node {node}{again}")
            elif kind == "progress" and attempt == self.attempt.get(cell):
                done = event.get("done")
                now = time.monotonic()
                if (
                    isinstance(done, int)
                    and now - self._shown.get(cell, 0.0) >= PROGRESS_LINE_EVERY_S
                ):
                    self._shown[cell] = now
                    self.console.print(f"  {cell} on {node}: {done}/{self.totals[cell]} cases")
