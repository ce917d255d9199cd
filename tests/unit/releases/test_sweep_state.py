"""A sweep's run directory: its plan written once and read back, what each release came to
(last line wins, damaged lines skipped), and the sweep command's refusals."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from portbench.errors import UsageError
from portbench.releases.spec import Release
from portbench.sweep.run import cell_dir_name
from portbench.sweep.state import (
    Settled,
    SweepPlan,
    read_settled,
    read_sweep_plan,
    record_settled,
    write_sweep_plan,
)

ROOT = Path(__file__).resolve().parents[3]
PLAN = SweepPlan(
    framework="jax",
    accelerator="cpu",
    releases=(Release("jax", "0.4.13"), Release("jax", "0.6.2")),
    timing=False,
    functions=("jax.numpy.add",),
)


def test_a_sweep_plan_is_written_once_and_reads_back_the_same(tmp_path: Path) -> None:
    write_sweep_plan(tmp_path / "run", PLAN)
    assert read_sweep_plan(tmp_path / "run") == PLAN
    with pytest.raises(UsageError, match="holds a sweep already; resume it"):
        write_sweep_plan(tmp_path / "run", PLAN)
    with pytest.raises(UsageError, match=r"holds no sweep\.json"):
        read_sweep_plan(tmp_path)


def test_a_sweep_plan_that_is_not_one_is_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "sweep.json").write_text('{"schema": 1, "framework": "jax", "releases": "0.6.2"}')
    with pytest.raises(UsageError, match="must be lists"):
        read_sweep_plan(tmp_path)
    (tmp_path / "sweep.json").write_text("not json")
    with pytest.raises(UsageError, match="is not a sweep's plan"):
        read_sweep_plan(tmp_path)
    (tmp_path / "sweep.json").unlink()
    (tmp_path / "elsewhere.json").write_text("{}")
    os.symlink(tmp_path / "elsewhere.json", tmp_path / "sweep.json")
    with pytest.raises(UsageError, match=r"holds no sweep\.json"):
        read_sweep_plan(tmp_path)


def test_the_last_line_of_a_release_wins_and_damaged_lines_are_skipped(tmp_path: Path) -> None:
    record_settled(tmp_path, Settled("jax==0.4.13", "failed", reason="stopped early"))
    with (tmp_path / "sweep.jsonl").open("a") as handle:
        handle.write('{"release": "jax==0.6.2", "status": "lan\n')  # a torn line
        handle.write('{"release": "jax==0.6.2", "status": "exploded"}\n')  # no such status
    record_settled(
        tmp_path,
        Settled(
            "jax==0.4.13", "landed", cell="jax-cpu-jax-0.4.13", wall_s=12.5, image={"tag": "t"}
        ),
    )
    settled = read_settled(tmp_path)
    assert list(settled) == ["jax==0.4.13"]
    line = settled["jax==0.4.13"]
    assert (line.status, line.cell, line.wall_s, line.image) == (
        "landed",
        "jax-cpu-jax-0.4.13",
        12.5,
        {"tag": "t"},
    )
    assert read_settled(tmp_path / "nothing") == {}


def test_each_release_has_its_own_cell_folder() -> None:
    names = {cell_dir_name(PLAN, r) for r in PLAN.releases}
    assert names == {"jax-cpu-jax-0.4.13", "jax-cpu-jax-0.6.2"}
    census = SweepPlan("jax", "cpu", PLAN.releases, kind="census")
    assert cell_dir_name(census, PLAN.releases[0]) == "census-jax-cpu-jax-0.4.13"


def _sweep(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "portbench", "sweep", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (["--no-timing"], "--framework is needed for a new sweep"),
        (["--resume", "/nonexistent", "--census"], "--census cannot go with --resume"),
        (["--resume", "/nonexistent"], "holds no sweep.json"),
        (["--framework", "jax", "--releases", "torch==2.4.1"], "this command is for jax"),
        (
            ["--framework", "jax", "--releases", "0.4.13", "0.5.3", "--from", "0.6", "--to", "0.7"],
            "no jax release of the sweep's list lies in 0.6 to 0.7",
        ),
        (["--framework", "jax", "--from", "0.7", "--to", "0.5"], "is newer than --to"),
        (["--framework", "jax", "--backend", "host"], "use --backend docker or venv"),
    ],
)
def test_sweep_refuses_bad_input_in_one_sentence(args: list[str], sentence: str) -> None:
    proc = _sweep(*args)
    assert proc.returncode == 2, proc.stderr
    assert sentence in " ".join(proc.stderr.split()) and "Traceback" not in proc.stderr
