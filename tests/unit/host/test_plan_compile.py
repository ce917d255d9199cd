"""Compiling plans: stable seeds, filters, the untested reasons, the rerun command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from portbench.accelerators import get_accelerator
from portbench.errors import UsageError
from portbench.manifest import load_manifest
from portbench.outcomes import function_outcome
from portbench.plan import (
    CellSpec,
    FallbackOptions,
    PlanOptions,
    case_seed,
    compile_plan,
)
from portbench_runner.contract import FallbackMode, FallbackSettings, Plan

from .test_manifest import ENTRY, _write


def _manifest(tmp_path: Path):
    extra = (
        ENTRY.replace("demo.f", "demo.g").replace('"f_test.py"', '"g_test.py"')
        + 'untested = { paper = "absent in 1.12" }\n'
    )
    return load_manifest(
        "demo", _write(tmp_path, 'schema = 1\nframework = "demo"\n' + ENTRY + extra)
    )


def test_the_cell_budget_is_in_the_plan_and_bench_passes_it(tmp_path: Path) -> None:
    import argparse

    from portbench.commands.bench import _new_request, register

    manifest = _manifest(tmp_path)
    cell = CellSpec("demo", get_accelerator("cpu"), "current", "venv")
    assert compile_plan(cell, manifest, [], PlanOptions()).cell_budget_s == 540.0
    off = compile_plan(cell, manifest, [], PlanOptions(cell_budget_s=0))
    assert off.cell_budget_s is None
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    base = ["bench", "--framework", "demo", "--accelerator", "cpu"]
    assert _new_request(parser.parse_args(base)).options.cell_budget_s == 540.0
    given = parser.parse_args([*base, "--cell-budget", "120"])
    assert _new_request(given).options.cell_budget_s == 120.0


def test_seeds_are_stable_per_case_id() -> None:
    # Stable across processes: another interpreter, with another string-hash seed, agrees.
    probe = "from portbench.plan import case_seed; print(case_seed(1, 'f::a'))"
    root = Path(__file__).resolve().parents[3]
    env = dict(
        os.environ,
        PYTHONHASHSEED="12345",
        PYTHONPATH=os.pathsep.join([str(root / "src"), str(root / "runners")]),
    )
    other = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert int(other.stdout) == case_seed(1, "f::a")
    assert case_seed(1, "f::a") != case_seed(1, "f::b")
    assert case_seed(1, "f::a") != case_seed(2, "f::a")


def test_plan_lists_every_function_and_filters(tmp_path: Path) -> None:
    manifest = _manifest(tmp_path)
    cell = CellSpec("demo", get_accelerator("cpu"), "paper", "venv")
    plan = compile_plan(cell, manifest, [], PlanOptions())
    assert Plan.from_json(plan.to_json(), "plan.json") == plan  # what the runner reads back
    assert [f.function for f in plan.functions] == ["demo.f", "demo.g"]
    assert plan.functions[1].untested_reason == "absent in 1.12"
    assert plan.cell == "demo/cpu/paper"
    assert plan.rerun_prefix.startswith(
        "portbench bench --framework demo --accelerator cpu --profile paper"
    )
    only = compile_plan(cell, manifest, [], PlanOptions(cases=("demo.f::b",)))
    assert [[c.name for c in f.cases] for f in only.functions] == [["b"]]
    with pytest.raises(UsageError, match="not in the demo manifest"):
        compile_plan(cell, manifest, [], PlanOptions(functions=("demo.nope",)))
    with pytest.raises(UsageError, match=r"case 'demo\.f::zzz' is not in the demo manifest"):
        compile_plan(cell, manifest, [], PlanOptions(cases=("demo.f::zzz",)))


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        (["pass", "pass", "skip"], "pass"),
        (["pass", "fail"], "partial"),
        (["fail", "fail", "skip"], "complete"),
        (["skip", "error"], "untested"),
        ([], "untested"),
        (["pass", "error"], "pass"),
    ],
)
def test_function_outcomes(outcomes: list[str], expected: str) -> None:
    assert function_outcome(outcomes) == expected


def test_fallback_settings_reach_the_plan_and_the_rerun_command(tmp_path: Path) -> None:
    manifest = _manifest(tmp_path)
    cell = CellSpec("demo", get_accelerator("cpu"), "host", "host")
    default = compile_plan(cell, manifest, [], PlanOptions())
    assert default.to_json()["fallback"] == {
        "mode": "mark",
        "soft_placement": False,
        "lower_for": None,
    }
    assert "--fallback" not in default.rerun_prefix
    strict = FallbackOptions(mode="fail", soft_placement=True, lower_for="cuda")
    plan = compile_plan(cell, manifest, [], PlanOptions(fallback=strict))
    assert plan.fallback == FallbackSettings(FallbackMode.FAIL, True, "cuda")
    assert plan.rerun_prefix.endswith("--fallback fail --soft-placement --lower-for cuda")


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"mode": "warn"}, "fallback mode 'warn' is not one of mark, fail"),
        ({"lower_for": "metal"}, "cannot lower for 'metal'"),
    ],
)
def test_bad_fallback_settings_are_one_sentence(options: dict[str, str], fragment: str) -> None:
    with pytest.raises(UsageError, match=fragment):
        FallbackOptions(**options)  # type: ignore[arg-type]


def test_a_compiled_plan_gives_back_its_fallback_flags() -> None:
    assert FallbackSettings().cli_args() == ()
    given = FallbackSettings(FallbackMode.FAIL, False, "tpu")
    assert given.cli_args() == ("--fallback", "fail", "--lower-for", "tpu")


def test_a_name_past_the_contracts_bound_is_refused_before_anything_runs(
    tmp_path: Path,
) -> None:
    long = "n" * 100_000
    entry = ENTRY.replace('"demo.f"', f'"demo.{long}"')
    manifest = load_manifest("demo", _write(tmp_path, 'schema = 1\nframework = "demo"\n' + entry))
    cell = CellSpec("demo", get_accelerator("cpu"), "host", "host")
    with pytest.raises(UsageError, match="case id of 100008 characters") as caught:
        compile_plan(cell, manifest, [], PlanOptions())
    assert len(str(caught.value)) < 400 and "\n" not in str(caught.value)
