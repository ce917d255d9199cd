"""The version report's analysis over synthetic cells: transitions per function and case,
what else moved at each step, new failures, and warm-median trends with compare's verdicts."""

from __future__ import annotations

import statistics

import pytest

from portbench.compare.pairs import Thresholds
from portbench.compare.stats import estimate_ratio
from portbench.compare.verdicts import verdict_alone
from portbench.releases.spec import Release
from portbench.versions.timeline import (
    CaseResult,
    ReleaseRun,
    new_failures,
    portability,
    steps,
    transitions,
    trends,
)

FAST = tuple(1.0 + 0.001 * i for i in range(8))
SLOW = tuple(2.0 + 0.001 * i for i in range(8))


def _run(version: str, python: str, numpy: str, **cases: tuple[str, ...]) -> ReleaseRun:
    """A cell of jax ``version``: cases ``fn__case=(outcome, category, message, fast|slow)``."""
    results = {}
    for key, spec in cases.items():
        function, _ = key.split("__")
        outcome = spec[0]
        samples = {"fast": FAST, "slow": SLOW, "few": FAST[:3]}.get(spec[-1], ())
        results[key.replace("__", "::")] = CaseResult(
            function, outcome, *(spec[1:3] if outcome == "fail" else (None, None)), samples
        )
    return ReleaseRun(Release("jax", version), python, numpy, ("log1p", "sort", "eig"), results)


RUNS = [
    # Given out of order: the timeline sorts by version, not by text.
    _run(
        "0.4.20", "3.11", "1.26.1",
        log1p__f16=("fail", "type", "no float16 log1p", ""), log1p__f32=("pass", "fast"),
        sort__i8=("pass", "fast"), eig__f32=("pass", "few"),
    ),
    _run(
        "0.4.13", "3.11", "1.25.0",
        log1p__f16=("fail", "type", "no float16 log1p", ""), log1p__f32=("pass", "fast"),
        sort__i8=("pass", "fast"), eig__f32=("fail", "not_implemented", "no eig", ""),
    ),
    ReleaseRun(Release("jax", "0.4.25"), None, None, ("log1p", "sort", "eig"), skipped="jax==0.4.25 does not install: ..."),
    _run(
        "0.4.35", "3.13", "2.1.2",
        log1p__f16=("pass", "fast"), log1p__f32=("pass", "slow"),
        sort__i8=("fail", "precision", "sort differs", ""), eig__f32=("pass", "fast"),
    ),
    _run(
        "0.5.3", "3.13", "2.2.4",
        log1p__f16=("pass", "fast"), log1p__f32=("pass", "slow"),
        sort__i8=("pass", "fast"), eig__f32=("skip", ""),
    ),
]  # fmt: skip


def test_each_release_counts_its_functions_and_one_that_did_not_install_says_why() -> None:
    table = {release.version: counts for release, counts in portability(RUNS)}
    assert list(table) == ["0.4.13", "0.4.20", "0.4.25", "0.4.35", "0.5.3"]
    assert table["0.4.13"] == {"pass": 1, "partial": 1, "complete": 1, "untested": 0}
    assert table["0.4.20"] == {"pass": 2, "partial": 1, "complete": 0, "untested": 0}
    assert table["0.4.25"] == "jax==0.4.25 does not install: ..."
    assert table["0.4.35"] == {"pass": 2, "partial": 0, "complete": 1, "untested": 0}
    assert table["0.5.3"] == {"pass": 2, "partial": 0, "complete": 0, "untested": 1}


def test_steps_bridge_a_release_that_did_not_install_and_say_what_else_moved() -> None:
    labels = [(s.label, s.also_changed) for s in steps(RUNS)]
    assert labels == [
        ("0.4.13 -> 0.4.20", ["numpy 1.25.0 -> 1.26.1"]),
        ("0.4.20 -> 0.4.35 (0.4.25 did not install)", ["Python 3.11 -> 3.13", "numpy 1.26.1 -> 2.1.2"]),
        ("0.4.35 -> 0.5.3", ["numpy 2.1.2 -> 2.2.4"]),
    ]  # fmt: skip


def test_transitions_name_the_release_where_it_became_portable_broke_or_was_fixed() -> None:
    found = {(t.level, t.key, t.step.after.release.version, t.kind) for t in transitions(RUNS)}
    assert found == {
        ("function", "eig", "0.4.20", "became portable"),  # complete -> pass
        ("case", "eig::f32", "0.4.20", "became portable"),
        ("function", "log1p", "0.4.35", "became portable"),  # partial -> pass
        ("case", "log1p::f16", "0.4.35", "became portable"),
        ("function", "sort", "0.4.35", "broke"),
        ("case", "sort::i8", "0.4.35", "broke"),
        ("function", "sort", "0.5.3", "fixed"),  # it had passed before it broke
        ("case", "sort::i8", "0.5.3", "fixed"),
        # eig's only case skipped in 0.5.3: untested, which is no portability transition.
    }


def test_a_step_lists_its_new_failures_for_classification_by_hand() -> None:
    first, second, third = steps(RUNS)
    assert new_failures(first) == []
    assert new_failures(second) == [("sort", "precision", "sort differs")]
    assert new_failures(third) == []


def test_trends_carry_compares_verdict_or_say_the_samples_are_too_few() -> None:
    found = {(t.case, t.step.after.release.version): t.verdict for t in trends(RUNS)}
    assert found[("log1p::f32", "0.4.35")] == "slower"
    assert found[("log1p::f32", "0.4.20")] == "same"
    assert found[("eig::f32", "0.4.35")] == "too few samples"  # 3 samples in 0.4.20
    assert found[("sort::i8", "0.4.20")] == "same"
    # Only cases that pass on both sides are timed against each other.
    assert ("sort::i8", "0.4.35") not in found
    assert found[("log1p::f32", "0.5.3")] == "same"


@pytest.mark.parametrize(
    "b", [FAST, SLOW, tuple(v * 1.05 for v in SLOW), tuple(v * 0.45 for v in SLOW)]
)
def test_the_verdict_is_the_one_compare_gives(b: tuple[float, ...]) -> None:
    """The timeline's rule and compare's, on the same samples (guards against drift)."""
    run_a = _run("0.1.0", "3.11", "1", f__c=("pass", "slow"))
    run_b = ReleaseRun(
        Release("jax", "0.2.0"),
        "3.11",
        "1",
        ("f",),
        {"f::c": CaseResult("f", "pass", samples_ms=b)},
    )
    (trend,) = trends([run_a, run_b])
    estimate = estimate_ratio([SLOW], [b], [statistics.median(SLOW)], [statistics.median(b)])
    assert trend.verdict == verdict_alone(estimate, Thresholds())
