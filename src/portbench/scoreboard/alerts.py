"""``--fail-on regression``: the newest release of a framework breaks a case that passed in
the release before, on the same target (and for the same kind of evidence).

Each regression is named with what else changed between the two releases (Python, NumPy),
so a break is not blamed on the framework alone. Flaky cases (runs of one release
disagree) are listed apart and never fail the check.
"""

from __future__ import annotations

from dataclasses import dataclass

from .regressions import Flip, SeriesReport

__all__ = ["Alert", "Alerts", "newest_alerts"]


@dataclass(frozen=True)
class Alert:
    title: str
    before: str
    after: str
    flip: Flip
    also_changed: tuple[str, ...]

    def sentence(self) -> str:
        message = (self.flip.after.newest.message or "").splitlines()
        why = f": {message[0][:200]}" if message and message[0] else ""
        also = f" (also changed: {'; '.join(self.also_changed)})" if self.also_changed else ""
        return (
            f"{self.title}: {self.after} breaks {self.flip.case}, which passed in "
            f"{self.before}{why}{also}"
        )


@dataclass(frozen=True)
class Alerts:
    regressions: list[Alert]
    flaky: list[str]
    """One line per case flaky in either of the two newest releases of a series."""


def newest_alerts(reports: list[SeriesReport]) -> Alerts:
    """Regressions of each series' newest release against the one before, and its flaky
    cases apart."""
    regressions: list[Alert] = []
    flaky: list[str] = []
    for report in reports:
        if not report.pairs:
            continue
        pair = report.pairs[-1]
        title = report.key.title
        for flip in pair.of("broke"):
            regressions.append(
                Alert(
                    title, pair.before.release, pair.after.release, flip, tuple(pair.also_changed)
                )
            )
        for release, state in pair.flaky:
            outcomes = ", ".join(f"{r.outcome} ({r.run.where})" for r in state.results)
            flaky.append(f"{title}: {state.case} is flaky in {release}: {outcomes}")
    return Alerts(regressions, flaky)
