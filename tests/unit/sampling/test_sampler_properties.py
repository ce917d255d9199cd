"""Property tests for ranking and drawing: strata sizes, no duplicates, determinism, ties."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from portbench.errors import UsageError
from portbench.sampling.sampler import decile_of, draw_sample, rank_names

# Small frequency ranges on purpose: they make large tie groups, the hard case.
frequencies = st.dictionaries(
    st.from_regex(r"fw\.[a-z]{1,6}", fullmatch=True), st.integers(0, 12), min_size=1, max_size=150
)
seeds = st.integers(0, 2**32)


def _pairs(table: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(table.items())


@given(frequencies)
def test_deciles_are_equal_sized_and_monotone(table: dict[str, int]) -> None:
    ranked = rank_names(_pairs(table))
    assert [r.rank for r in ranked] == list(range(1, len(ranked) + 1))
    assert all(r.frequency > 0 for r in ranked)
    sizes = Counter(r.decile for r in ranked)
    if len(ranked) >= 10:
        assert set(sizes) == set(range(1, 11))
        assert max(sizes.values()) - min(sizes.values()) <= 1
    # More used never lands in a lower decile; a tie group spans only adjacent deciles.
    for a, b in zip(ranked, ranked[1:], strict=False):
        assert a.frequency >= b.frequency
        assert a.decile >= b.decile
        if a.frequency == b.frequency:
            assert a.name < b.name
            assert a.tie_deciles == b.tie_deciles
    for r in ranked:
        group = {o.decile for o in ranked if o.frequency == r.frequency}
        assert r.tie_deciles == tuple(sorted(group))


@given(frequencies, seeds, st.integers(0, 25), st.integers(0, 8))
@settings(max_examples=150)
def test_strata_sizes_and_no_duplicates(
    table: dict[str, int], seed: int, top: int, per: int
) -> None:
    ranked = rank_names(_pairs(table))
    sample = draw_sample(ranked, seed, top=top, per_decile=per)
    names = [p.name for p in sample.picks]
    assert len(names) == len(set(names))
    strata = Counter(p.stratum for p in sample.picks)
    assert strata.get(f"top{top}", 0) == min(top, len(ranked))
    rest = ranked[top:]
    for decile in range(1, 11):
        available = sum(1 for r in rest if r.decile == decile)
        assert strata.get(str(decile), 0) == min(per, available)
    # What each stratum reports is what it holds, and short is exactly "fewer than asked".
    reported = {s.stratum: s for s in sample.strata}
    assert [s.stratum for s in sample.strata] == [f"top{top}", *map(str, range(10, 0, -1))]
    assert all(reported[k].got == strata.get(k, 0) for k in reported)
    assert sum(s.got for s in sample.strata) == len(names)
    assert sample.asked == top + 10 * per
    assert bool(sample.short_strata) == (len(names) < sample.asked)
    by_name = {r.name: r for r in ranked}
    for pick in sample.picks:
        if not pick.stratum.startswith("top"):
            assert int(pick.stratum) == by_name[pick.name].decile
            assert by_name[pick.name].rank > top


@given(frequencies, seeds)
def test_the_same_seed_draws_the_same_sample(table: dict[str, int], seed: int) -> None:
    ranked = rank_names(_pairs(table))
    # Input order must not matter either.
    shuffled = rank_names(list(reversed(_pairs(table))))
    assert draw_sample(ranked, seed, top=3, per_decile=2) == draw_sample(
        shuffled, seed, top=3, per_decile=2
    )


def test_different_seeds_draw_different_samples() -> None:
    ranked = rank_names([(f"fw.n{i:03d}", i) for i in range(1, 501)])
    samples = {tuple(p.name for p in draw_sample(ranked, seed).picks) for seed in range(5)}
    assert len(samples) == 5


@given(frequencies, seeds)
def test_replacement_stays_in_the_decile_and_is_recorded(table: dict[str, int], seed: int) -> None:
    ranked = rank_names(_pairs(table))
    first = draw_sample(ranked, seed, top=2, per_decile=2)
    drawn = [p for p in first.picks if not p.stratum.startswith("top")]
    if not drawn:
        return
    victim = drawn[0]
    left = sum(1 for r in ranked[2:] if str(r.decile) == victim.stratum) - sum(
        1 for p in drawn if p.stratum == victim.stratum
    )
    if left == 0:
        with pytest.raises(UsageError, match="no names left"):
            draw_sample(ranked, seed, top=2, per_decile=2, replacements=[(victim.name, "no test")])
        return
    second = draw_sample(ranked, seed, top=2, per_decile=2, replacements=[(victim.name, "no test")])
    (record,) = second.replaced
    assert (record.name, record.stratum, record.reason) == (victim.name, victim.stratum, "no test")
    new = next(p for p in second.picks if p.name == record.replaced_by)
    assert new.stratum == victim.stratum
    assert (new.replaces, new.reason) == (victim.name, "no test")
    assert victim.name not in {p.name for p in second.picks}
    # Other picks are untouched.
    assert {p.name for p in first.picks} - {victim.name} == {p.name for p in second.picks} - {
        new.name
    }


def test_decile_boundaries() -> None:
    assert [decile_of(r, 20) for r in (1, 2, 3, 19, 20)] == [10, 10, 9, 1, 1]
    assert [decile_of(r, 10) for r in range(1, 11)] == list(range(10, 0, -1))


def test_a_tie_across_a_boundary_is_recorded_on_both_sides() -> None:
    pairs = [(f"fw.a{i:02d}", 100 - i) for i in range(16)] + [(f"fw.z{i:02d}", 1) for i in range(4)]
    ranked = rank_names(pairs)
    ties = [r for r in ranked if r.frequency == 1]
    assert {r.decile for r in ties} == {1, 2}
    assert all(r.tie_deciles == (1, 2) for r in ties)


def test_unused_names_are_ranked_only_when_asked() -> None:
    pairs = [("fw.a", 3), ("fw.b", 0)]
    assert [r.name for r in rank_names(pairs)] == ["fw.a"]
    assert [r.name for r in rank_names(pairs, include_unused=True)] == ["fw.a", "fw.b"]


def test_replacing_a_top_name_or_an_unknown_name_is_refused() -> None:
    ranked = rank_names([(f"fw.n{i:03d}", i) for i in range(1, 101)])
    with pytest.raises(UsageError, match="excluded, not replaced"):
        draw_sample(ranked, 1, replacements=[("fw.n100", "no test")])
    with pytest.raises(UsageError, match="not in the sample"):
        draw_sample(ranked, 1, replacements=[("fw.nope", "no test")])
