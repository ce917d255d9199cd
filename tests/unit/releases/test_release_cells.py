"""A release as a cell's profile: `bench --release`, its lock and provenance, the record's
cell id with a release's tag, and `--no-timing` (mode none: the cold call only)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from portbench.errors import UsageError
from portbench.images.locks import lock_id
from portbench.plan import CellSpec, PlanOptions, compile_plan
from portbench.profiles import check_profile
from portbench.releases.cells import (
    cell_lock,
    lock_provenance,
    release_cell_profile,
    release_of_profile,
)
from portbench.releases.spec import Release
from portbench_runner.contract import CaseRecord, RecordInvalid
from portbench_runner.timing import time_call
from unit.releases.test_pylock import PYLOCK

ROOT = Path(__file__).resolve().parents[3]


def test_a_release_tag_is_a_profile_of_its_own_framework_only() -> None:
    assert release_of_profile("jax-0.6.2", "jax") == Release("jax", "0.6.2")
    assert release_of_profile("jax-0.6.2", "torch") is None
    assert release_of_profile("current", "jax") is None
    assert release_of_profile("jax-0.6.02", "jax") is None  # not normalized: no release tag
    check_profile("torch-2.4.1", "torch", "cpu")
    check_profile("current", "torch", "cpu")
    with pytest.raises(UsageError, match=r"unknown profile 'jax-0\.6\.2'.*torch release's tag"):
        check_profile("jax-0.6.2", "torch", "cpu")


def test_a_release_tag_is_pinned_through_its_release_lock_not_a_profile_lock() -> None:
    from portbench.images.accelerator_locks import not_pinned, require_installable

    assert not_pinned("jax-0.6.2", "jax", "cpu") is None
    require_installable("jax-0.6.2", "jax", "cpu")  # no images/locks/jax-0.6.2/: not refused
    # Another framework's tag is no release of this one: a profile with no lock.
    assert "pins no torch build" in (not_pinned("jax-0.6.2", "torch", "cpu") or "")


def test_release_on_the_command_line_names_framework_and_profile() -> None:
    assert release_cell_profile("jax==0.6.2", None) == ("jax", "jax-0.6.2")
    assert release_cell_profile("0.6.2", "jax") == ("jax", "jax-0.6.2")
    with pytest.raises(UsageError, match="this command is for torch"):
        release_cell_profile("jax==0.6.2", "torch")


def test_a_release_cell_reads_its_committed_lock_and_names_it_in_its_provenance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "images" / "locks" / "releases" / "torch" / "2.4.1" / "pylock.cpu.toml"
    path.parent.mkdir(parents=True)
    path.write_text(PYLOCK)
    monkeypatch.setenv("PORTBENCH_HOME", str(tmp_path))
    lock = cell_lock("torch-2.4.1", "torch", "cpu")
    assert lock.path == path and lock.release == "torch==2.4.1"
    provenance = lock_provenance(lock)
    assert provenance is not None and provenance.release == "torch==2.4.1"
    assert provenance.lock is not None and provenance.lock.sha256 == lock.sha256
    assert provenance.lock.id == lock_id(lock) == "releases/torch/2.4.1/pylock.cpu.toml"
    # Python and numpy are the worker's to say (the versions it imported, not the lock's).
    assert provenance.python is None and provenance.numpy is None


def _record(cell: str) -> dict[str, object]:
    """A real record of a reference cell, moved to ``cell``."""
    path = ROOT / "results" / "reference" / "20261122-cpu-docker" / "jax-cpu-current"
    record = dict(json.loads((path / "results.jsonl").read_text().splitlines()[0]))
    record.update(cell=cell, profile=cell.rsplit("/", maxsplit=1)[-1])
    record["timing"] = {"cold_ms": 1.0, "warm": None, "mode": "none"}
    return record


def test_a_record_of_a_release_cell_reads_and_no_cell_id_climbs_out_of_its_folder() -> None:
    record = CaseRecord.from_json(_record("jax/cpu/jax-0.6.2"))
    assert record.cell == "jax/cpu/jax-0.6.2"
    assert record.timing is not None and record.timing.mode == "none"
    for bad in ("jax/cpu/..", "jax/cpu/.hidden", "jax/cpu/a/b", "jax/c.pu/current"):
        with pytest.raises(RecordInvalid, match="framework/accelerator/profile"):
            CaseRecord.from_json(_record(bad))


def test_no_timing_calls_the_function_once_and_says_so() -> None:
    calls = []

    def call() -> int:
        calls.append(1)
        return 7

    output, timing = time_call(call, lambda _: None, {"mode": "none"}, warm=True)
    assert output == 7 and calls == [1]
    assert timing["warm"] is None and timing["mode"] == "none" and timing["cold_ms"] >= 0
    # The default (adaptive) samples warm calls: many more than one.
    calls.clear()
    _, timing = time_call(call, lambda _: None, None, warm=True)
    assert len(calls) > 6 and timing["warm"] is not None and "mode" not in timing


def test_a_no_timing_plan_says_so_in_its_rerun_command() -> None:
    from portbench.accelerators import get_accelerator
    from portbench.manifest import load_manifest
    from portbench.rules import load_rules

    cell = CellSpec("jax", get_accelerator("cpu"), "jax-0.6.2", "docker")
    options = PlanOptions(functions=("jax.numpy.add",), timing={"mode": "none"})
    plan = compile_plan(cell, load_manifest("jax"), load_rules("jax"), options)
    assert plan.cell == "jax/cpu/jax-0.6.2" and plan.timing == {"mode": "none"}
    assert plan.rerun_prefix.endswith("--profile jax-0.6.2 --backend docker --no-timing")


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "portbench", "bench", *args],
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
        (
            ["--release", "jax==0.6.2", "--profile", "current", "--accelerator", "cpu"],
            "both name the cell's pins",
        ),
        (
            ["--framework", "jax", "--accelerator", "cpu", "--no-timing", "--warm-budget", "1"],
            "--warm-budget times warm calls, which --no-timing skips",
        ),
        (["--release", "jax>=0.6", "--accelerator", "cpu"], "must pin exactly one version"),
        (["--resume", "/nonexistent", "--release", "jax==0.6.2"], "cannot go with --resume"),
    ],
)
def test_bench_refuses_contradicting_release_and_timing_options_in_one_sentence(
    args: list[str], sentence: str
) -> None:
    proc = _bench(*args)
    assert proc.returncode == 2, proc.stderr
    assert sentence in " ".join(proc.stderr.split()) and "Traceback" not in proc.stderr
