"""Rank names by use, cut the ranking into deciles, and draw the stratified, seeded sample.

The sample is the ``top`` most used names plus ``per_decile`` names drawn at random from
each frequency decile (10 = most used, 1 = least used, as in the study). Everything is a
pure function of the frequencies and the seed:

* ranks are ordinal: frequency descending, ties broken by name, so rank never depends on
  the seed; the decile of rank ``r`` among ``N`` ranked names is ``10 - (r - 1) * 10 // N``,
  so decile sizes differ by at most one. A tie group may straddle a boundary; every name
  records the deciles its tie group spans (``tie_deciles``; the study's ``1|2``);
* each decile's draw is a permutation of that decile seeded by ``(seed, decile)``: the
  sample takes its head, and a replacement takes the next name in it, so one decile's
  replacements never move another decile's picks;
* the top names are excluded from the decile pools, so no name is sampled twice;
* a stratum whose pool holds fewer names than asked gets what there is, and says so
  (``Sample.strata``: asked, pool, got), so a short sample is never passed off as full.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..errors import UsageError

__all__ = [
    "Pick",
    "Ranked",
    "Replacement",
    "Sample",
    "StratumCount",
    "decile_of",
    "draw_sample",
    "rank_names",
]

DECILES = tuple(range(10, 0, -1))


@dataclass(frozen=True)
class Ranked:
    """A name's place in the ranking."""

    name: str
    frequency: int
    rank: int
    decile: int
    tie_deciles: tuple[int, ...]
    """Every decile holding a name with this frequency (more than one: a straddling tie)."""


@dataclass(frozen=True)
class Pick:
    """One sampled name; ``stratum`` is ``top<k>`` or a decile number as text."""

    name: str
    stratum: str
    frequency: int
    rank: int
    tie_deciles: tuple[int, ...]
    replaces: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Replacement:
    """A name taken out of the sample, why, and what took its place."""

    name: str
    stratum: str
    reason: str
    replaced_by: str


@dataclass(frozen=True)
class StratumCount:
    """What one stratum was asked for and what it got: ``top<k>`` or a decile as text."""

    stratum: str
    asked: int
    pool: int
    """Names the stratum could draw from (for a decile: its names outside the top)."""
    got: int

    @property
    def short(self) -> bool:
        """Fewer names than asked: the corpus ranked too few names for this stratum."""
        return self.got < self.asked


@dataclass(frozen=True)
class Sample:
    """The drawn sample and its parameters."""

    picks: tuple[Pick, ...]
    replaced: tuple[Replacement, ...]
    seed: int
    top: int
    per_decile: int
    ranked: int
    strata: tuple[StratumCount, ...] = ()
    """Top first, then deciles 10 down to 1."""

    @property
    def asked(self) -> int:
        """How many names the strata asked for together."""
        return sum(s.asked for s in self.strata)

    @property
    def short_strata(self) -> tuple[StratumCount, ...]:
        """The strata that got fewer names than asked."""
        return tuple(s for s in self.strata if s.short)


def decile_of(rank: int, total: int) -> int:
    """Decile of ordinal ``rank`` (1 = most used) among ``total`` names: 10 down to 1."""
    return 10 - (rank - 1) * 10 // total


def rank_names(
    frequencies: Sequence[tuple[str, int]], include_unused: bool = False
) -> list[Ranked]:
    """Rank names by frequency (ties by name); unused names are left out unless asked."""
    seen: set[str] = set()
    for name, _ in frequencies:
        if name in seen:
            raise UsageError(f"name {name!r} appears twice in the frequency file; regenerate it")
        seen.add(name)
    items = sorted(
        ((n, f) for n, f in frequencies if include_unused or f > 0), key=lambda i: (-i[1], i[0])
    )
    total = len(items)
    spans: dict[int, set[int]] = defaultdict(set)
    for position, (_, frequency) in enumerate(items, start=1):
        spans[frequency].add(decile_of(position, total))
    return [
        Ranked(
            name, frequency, position, decile_of(position, total), tuple(sorted(spans[frequency]))
        )
        for position, (name, frequency) in enumerate(items, start=1)
    ]


def _pick(entry: Ranked, stratum: str) -> Pick:
    return Pick(entry.name, stratum, entry.frequency, entry.rank, entry.tie_deciles)


def draw_sample(
    ranked: Sequence[Ranked],
    seed: int,
    top: int = 20,
    per_decile: int = 5,
    replacements: Sequence[tuple[str, str]] = (),
) -> Sample:
    """Draw the sample, then apply ``(name, reason)`` replacements in order."""
    if top < 0 or per_decile < 0:
        raise UsageError("--top and --per-decile must be zero or more")
    top_label = f"top{top}"
    picks = {e.name: _pick(e, top_label) for e in ranked[:top]}
    strata = [StratumCount(top_label, top, len(ranked), len(picks))]
    queues: dict[int, list[Ranked]] = {}
    for decile in DECILES:
        pool = [e for e in ranked[top:] if e.decile == decile]
        queues[decile] = random.Random(f"portbench:{seed}:{decile}").sample(pool, len(pool))
        for entry in queues[decile][:per_decile]:
            picks[entry.name] = _pick(entry, str(decile))
        strata.append(StratumCount(str(decile), per_decile, len(pool), min(per_decile, len(pool))))
        del queues[decile][:per_decile]
    done: list[Replacement] = []
    for name, reason in replacements:
        old = picks.get(name)
        if old is None:
            raise UsageError(
                f"--replace {name}: not in the sample; replace one of the sampled names"
            )
        if old.stratum == top_label:
            raise UsageError(
                f"--replace {name}: the top {top} are excluded, not replaced (as in the study); "
                "remove it from the skeleton by hand"
            )
        queue = queues[int(old.stratum)]
        if not queue:
            raise UsageError(f"--replace {name}: decile {old.stratum} has no names left to draw")
        new = queue.pop(0)
        del picks[name]
        picks[new.name] = replace(_pick(new, old.stratum), replaces=name, reason=reason)
        done.append(Replacement(name, old.stratum, reason, new.name))
    ordered = sorted(
        picks.values(),
        key=lambda p: (
            p.stratum != top_label,
            -int(p.stratum) if p.stratum != top_label else 0,
            p.rank,
        ),
    )
    return Sample(tuple(ordered), tuple(done), seed, top, per_decile, len(ranked), tuple(strata))
