"""compare: pairing, the rank test, regressions beyond a threshold, the CI gate."""

from __future__ import annotations

import json
import random
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from portbench.cli import main
from portbench.compare import Thresholds, compare_cells, compare_runs, load_side, pair_cells
from portbench.compare.stats import (
    RatioEstimate,
    estimate_ratio,
    mann_whitney_p,
    min_per_side,
    smallest_p,
    too_few,
)
from portbench.compare.verdicts import verdict
from portbench.plan import PlanOptions, plan_from_case_files, write_plan

from ..results.records import case_record

CASES = """
from portbench_runner.api import case

@case("fast")
def fast(ctx):
    return 1

@case("slow")
def slow(ctx):
    return 2

@case("steady")
def steady(ctx):
    return 3
"""


def _warm(samples: list[float]) -> dict[str, Any]:
    q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return {
        "median_ms": statistics.median(samples),
        "q1_ms": q1,
        "q3_ms": q3,
        "iqr_ms": q3 - q1,
        "min_ms": min(samples),
        "mean_ms": statistics.fmean(samples),
        "samples": len(samples),
        "calls_per_sample": 1,
        "noisy": False,
        "ci95_rel": 0.01,
        "stopped_by": "converged",
        "samples_ms": samples,
    }


def _noisy(median: float, seed: int, n: int = 60) -> list[float]:
    """Timings around ``median`` with a 3% spread, as a quiet machine gives."""
    rng = random.Random(seed)
    return [median * (1 + rng.gauss(0, 0.03)) for _ in range(n)]


def _cell(
    root: Path,
    name: str,
    medians: dict[str, float],
    outcomes: dict[str, str] | None = None,
    seed: int = 0,
    timing: dict[str, float] | None = None,
    summaries_only: bool = False,
    source: str = CASES,
) -> Path:
    work = root / f"{name}-work"
    plan = plan_from_case_files(work, {"ops": source}, options=PlanOptions(timing=timing or {}))
    cell_dir = root / name / "python-cpu-host"
    cell_dir.mkdir(parents=True)
    write_plan(plan, cell_dir / "plan.json")
    lines = []
    for index, (case_name, median) in enumerate(medians.items()):
        warm = _warm(_noisy(median, seed * 100 + index))
        if summaries_only:
            warm["samples_ms"] = []
            warm["ci95_rel"] = None
            warm["stopped_by"] = None
        outcome = (outcomes or {}).get(case_name, "pass")
        fields: dict[str, Any] = {"outcome": outcome}
        if outcome == "pass":
            fields["timing"] = {"cold_ms": 5.0, "warm": warm}
        else:
            fields.update(stage="call", category="other", reason="boom", timing=None)
        lines.append(json.dumps(case_record(plan, case_name, **fields)))
    (cell_dir / "results.jsonl").write_text("\n".join(lines) + "\n")
    return cell_dir


def test_the_rank_test_is_exact_for_small_samples() -> None:
    # U = 0 for three against three: exactly 2 of the C(6, 3) = 20 orderings are as extreme,
    # p = 0.1 (the normal approximation says 0.081).
    assert mann_whitney_p([1, 2, 3], [4, 5, 6]) == (pytest.approx(0.1), "exact")
    # Five against five: 2/252.
    assert mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])[0] == pytest.approx(2 / 252)
    assert mann_whitney_p([1, 2, 3], [1, 2, 3])[0] == pytest.approx(1.0)
    assert mann_whitney_p([5, 5, 5], [5, 5, 5]) == (1.0, "exact")
    assert mann_whitney_p(_noisy(1.0, 1), _noisy(1.0, 2))[1] == "asymptotic"


def test_too_few_samples_is_where_the_exact_test_cannot_reach_alpha() -> None:
    assert smallest_p(3, 3) == pytest.approx(0.1) and too_few(3, 3, 0.05)
    assert too_few(3, 4, 0.05) and too_few(1, 60, 0.05) and too_few(0, 5, 0.05)
    assert not too_few(4, 4, 0.05) and smallest_p(4, 4) == pytest.approx(2 / 70)
    assert too_few(4, 4, 0.01) and not too_few(5, 5, 0.01)
    assert min_per_side(0.05) == 4 and min_per_side(0.01) == 5
    # One warm sample against four: a ratio, but no test and no verdict.
    few = estimate_ratio([[30.0]], [[1.0, 1.1, 0.9, 1.0]], [30.0], [1.0])
    assert few.method == "too few samples" and few.p_value is None and few.n_a == 1


def test_a_twenty_percent_slowdown_is_flagged_and_a_one_percent_one_is_not() -> None:
    base = _noisy(1.0, 1)
    slower = estimate_ratio([base], [_noisy(1.2, 2)], [1.0], [1.2])
    assert slower.p_value is not None and slower.p_value < 1e-6
    assert slower.ratio == pytest.approx(1.2, rel=0.03)
    assert slower.low is not None and slower.high is not None
    assert slower.low < slower.ratio < slower.high
    tiny = estimate_ratio([base], [_noisy(1.01, 3)], [1.0], [1.01])
    assert tiny.ratio == pytest.approx(1.01, rel=0.03)


def test_cells_compare_case_by_case_with_verdicts_and_outcome_changes(tmp_path: Path) -> None:
    a = _cell(tmp_path, "a", {"fast": 1.0, "slow": 1.0, "steady": 1.0})
    b = _cell(tmp_path, "b", {"fast": 1.0, "slow": 1.2, "steady": 1.01}, {"fast": "fail"}, seed=1)
    pairs, lone_a, lone_b = pair_cells(load_side(a.parent), load_side(b.parent))
    assert len(pairs) == 1 and not lone_a and not lone_b
    result = compare_cells(*pairs[0], Thresholds())
    by_case = {c.case.split("::")[1]: c for c in result.cases}
    assert by_case["slow"].verdict == "slower"
    assert by_case["steady"].verdict == "same"
    assert by_case["fast"].change == "broke" and by_case["fast"].verdict == "none"
    assert result.functions == [("demo.ops", "pass", "partial")]
    assert not result.unpaired


def test_cases_pair_only_on_the_same_seed_and_timing_and_the_rest_is_counted(
    tmp_path: Path,
) -> None:
    a = _cell(tmp_path, "a", {"fast": 1.0, "slow": 1.0, "steady": 1.0})
    b = _cell(tmp_path, "b", {"fast": 1.0, "slow": 1.0}, timing={"mode": "fixed"})  # type: ignore[dict-item]
    result = compare_cells(load_side(a)[0], load_side(b)[0], Thresholds())
    assert result.cases == []
    assert result.unpaired == {"timing settings differ": 3}
    assert ("timing", "{}", '{"mode": "fixed"}') in result.differences
    c = _cell(tmp_path, "c", {"fast": 1.0, "slow": 1.0})
    result = compare_cells(load_side(a)[0], load_side(c)[0], Thresholds())
    assert len(result.cases) == 2 and result.unpaired == {"not recorded in B": 1}


def test_records_without_samples_get_no_verdict(tmp_path: Path) -> None:
    a = _cell(tmp_path, "a", {"fast": 1.0, "slow": 1.0, "steady": 1.0}, summaries_only=True)
    b = _cell(tmp_path, "b", {"fast": 1.0, "slow": 1.5, "steady": 1.0}, seed=1, summaries_only=True)
    result = compare_cells(load_side(a)[0], load_side(b)[0], Thresholds())
    slow = next(c for c in result.cases if c.case.endswith("::slow"))
    assert slow.estimate is not None and slow.estimate.ratio == pytest.approx(1.5, rel=0.05)
    assert slow.estimate.p_value is None and slow.verdict == "too few"


def test_several_runs_a_side_measure_the_noise_between_runs(tmp_path: Path) -> None:
    # Run medians wander by up to 15% from run to run (a loaded machine); B's "slow" case is
    # 10% slower, inside that noise: with one run a side it is flagged, with three it is not.
    medians_a = [1.00, 1.15, 0.98]
    medians_b = [1.10, 1.02, 1.12]
    runs_a = [
        _cell(tmp_path, f"a{i}", {"fast": 1.0, "slow": m, "steady": 1.0}, seed=i)
        for i, m in enumerate(medians_a)
    ]
    runs_b = [
        _cell(tmp_path, f"b{i}", {"fast": 1.0, "slow": m, "steady": 1.0}, seed=10 + i)
        for i, m in enumerate(medians_b)
    ]
    single = compare_runs([runs_a[2].parent], [runs_b[2].parent], Thresholds(slower=0.05))
    assert {c.case.split("::")[1]: c.verdict for c in single.cells[0].cases}["slow"] == "slower"
    many = compare_runs(
        [r.parent for r in runs_a], [r.parent for r in runs_b], Thresholds(slower=0.05)
    )
    slow = next(c for c in many.cells[0].cases if c.case.endswith("::slow"))
    assert slow.estimate is not None and slow.estimate.runs_a == slow.estimate.runs_b == 3
    assert slow.estimate.n_a == 180 and slow.estimate.runs_apart is False
    assert slow.estimate.run_spread == pytest.approx(1.15 / 0.98, rel=0.05)
    assert slow.verdict == "same"
    # A change larger than the noise between runs is still found.
    far = [
        _cell(tmp_path, f"c{i}", {"fast": 1.0, "slow": 1.6, "steady": 1.0}, seed=20 + i)
        for i in range(3)
    ]
    found = compare_runs([r.parent for r in runs_a], [r.parent for r in far], Thresholds())
    assert {c.case.split("::")[1]: c.verdict for c in found.cells[0].cases}["slow"] == "slower"


def _significant(
    ratio: float, low: float, high: float, runs: int = 1, apart: bool | None = None
) -> RatioEstimate:
    return RatioEstimate(
        ratio,
        low,
        high,
        1e-6,
        "asymptotic",
        n_a=60 * runs,
        n_b=60 * runs,
        runs_a=runs,
        runs_b=runs,
        runs_apart=apart,
        significant=True,
    )


def test_one_run_a_side_calls_a_change_only_where_its_whole_interval_is_beyond() -> None:
    # A 20% slowdown whose interval reaches back to 5%: a single run against a single run
    # cannot tell it from the noise between runs, which it does not measure.
    assert verdict(_significant(1.2, 1.05, 1.35), 0.10) == "same"
    assert verdict(_significant(1.2, 1.12, 1.28), 0.10) == "slower"
    assert verdict(_significant(0.8, 0.70, 0.95), 0.10) == "same"
    assert verdict(_significant(0.8, 0.75, 0.88), 0.10) == "faster"
    # Not significant after the correction: never a change, however far the interval.
    assert verdict(replace(_significant(1.5, 1.4, 1.6), significant=False), 0.10) == "same"
    # Several runs a side measure the noise between runs: the ratio decides there.
    assert verdict(_significant(1.2, 1.05, 1.35, runs=3, apart=True), 0.10) == "slower"
    assert verdict(_significant(1.2, 1.05, 1.35, runs=3, apart=True), 0.30) == "same"


def test_one_run_a_side_with_a_wide_interval_is_no_verdict_of_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Twenty samples a side spread by 15% (a loaded machine): B's median is 12% higher,
    # significant, but its interval reaches below +10%.
    rng = random.Random(3)
    a = [rng.gauss(1.0, 0.15) for _ in range(20)]
    b = [rng.gauss(1.12, 0.15) for _ in range(20)]
    estimate = estimate_ratio([a], [b], [statistics.median(a)], [statistics.median(b)])
    assert estimate.low is not None and estimate.low < 1.10 < estimate.ratio
    assert verdict(replace(estimate, significant=True), 0.10) == "same"
    # The command says which rule it used.
    first = _cell(tmp_path, "a", {"fast": 1.0, "slow": 1.0, "steady": 1.0})
    second = _cell(tmp_path, "b", {"fast": 1.0, "slow": 1.3, "steady": 1.0}, seed=1)
    assert main(["compare", str(first), str(second)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "whole 95% interval of B/A lies beyond ±10%" in out


def test_an_a_a_comparison_of_many_cases_flags_few_after_the_correction(tmp_path: Path) -> None:
    from portbench.compare.stats import benjamini_hochberg

    rng = random.Random(7)
    p_values = [
        mann_whitney_p(
            [rng.gauss(1, 0.03) for _ in range(20)], [rng.gauss(1, 0.03) for _ in range(20)]
        )[0]
        for _ in range(400)
    ]
    raw = sum(p <= 0.05 for p in p_values)
    adjusted = sum(q <= 0.05 for q in benjamini_hochberg(p_values))
    assert raw >= 8  # about 5% by chance
    assert adjusted <= 2


def test_a_damaged_env_is_one_sentence_and_no_package_reads_as_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _cell(tmp_path, "a", {"fast": 1.0, "slow": 1.0, "steady": 1.0})
    env = {"schema": 1, "kind": "env", "packages": {"numpy": "2.1.0", "jax": "0.7.0"}}
    (a / "env.json").write_text(json.dumps(env))
    damages = {
        "missing": None,
        "not UTF-8": b"\xff\xfe{",
        "a list": b"[]",
        "wrong types": json.dumps({**env, "packages": ["numpy"]}).encode(),
        "too large": b" " * (70 << 20),
    }
    for what, data in damages.items():
        b = _cell(
            tmp_path, f"b-{what.replace(' ', '-')}", {"fast": 1.0, "slow": 1.0, "steady": 1.0}
        )
        if data is not None:
            (b / "env.json").write_bytes(data)
        assert main(["compare", str(a), str(b)]) == 0, what
        out = " ".join(capsys.readouterr().out.split())
        assert "env.json" in out and "is not usable" in out, (what, out)
        assert "versions and packages are not compared" in out
        assert "package numpy" not in out and "package jax" not in out, what


def test_the_command_writes_files_and_gates_on_regressions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _cell(tmp_path, "a", {"fast": 1.0, "slow": 1.0, "steady": 1.0})
    b = _cell(tmp_path, "b", {"fast": 1.0, "slow": 1.2, "steady": 1.01}, seed=1)
    out = tmp_path / "cmp.json"
    assert main(["compare", str(a.parent), str(b.parent), "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    assert document["cells"][0]["summary"]["slower"] == 1
    assert main(["compare", str(a), str(b), "--fail-on", "slower"]) == 1
    assert main(["compare", str(a), str(b), "--fail-on", "broke"]) == 0
    # A looser threshold lets a 20% slowdown pass the gate.
    assert main(["compare", str(a), str(b), "--fail-on", "any", "--threshold", "0.5"]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert "not a directory" in err and "Traceback" not in err


def test_cases_pair_on_their_own_code_when_their_file_gained_or_changed_others(
    tmp_path: Path,
) -> None:
    # B's case file changed slow's body and gained a case: fast and steady ran the same code
    # and still pair; slow did not run the same code and is counted apart.
    edited = (
        CASES.replace("return 2", "return 20") + '\n@case("extra")\ndef extra(ctx):\n    pass\n'
    )
    a = _cell(tmp_path, "a", {"fast": 1.0, "slow": 1.0, "steady": 1.0})
    b = _cell(tmp_path, "b", {"fast": 1.0, "slow": 1.0, "steady": 1.0}, source=edited)
    result = compare_cells(load_side(a)[0], load_side(b)[0], Thresholds())
    assert sorted(c.case for c in result.cases) == ["demo.ops::fast", "demo.ops::steady"]
    assert result.unpaired == {"case code differs": 1, "only in B's plan": 1}
    # Plans from before per-case hashes fall back to the whole file's hash.
    for side, sha in ((a, "1" * 64), (b, "2" * 64)):
        plan = json.loads((side / "plan.json").read_text())
        for function in plan["functions"]:
            function["case_file_sha256"] = sha
            for entry in function["cases"]:
                entry.pop("code_sha256")
        (side / "plan.json").write_text(json.dumps(plan))
    result = compare_cells(load_side(a)[0], load_side(b)[0], Thresholds())
    assert result.cases == []
    assert result.unpaired == {"case file differs": 3, "only in B's plan": 1}
