"""Recorded failures categorized again by a set of rules (``python -m portbench.recategorize``),
on the committed reference runs: what the rules decide moves, what a case or the supervisor
decided stays."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import ROOT

from portbench.recategorize import recount
from portbench.report.load import load_cell
from portbench.rules import load_rules

REFERENCE = ROOT / "results" / "reference"
H100_TORCH = REFERENCE / "20261122-h100-host" / "torch-gpu-h100-host"
JAX_PAPER = REFERENCE / "20261122-cpu-docker" / "jax-cpu-paper-nearest"


def _no_rules(tmp_path: Path, framework: str) -> Path:
    (tmp_path / framework).mkdir(parents=True)
    (tmp_path / framework / "rules.toml").write_text("schema = 1\n")
    return tmp_path


def test_rules_decide_the_category_of_a_recorded_exception(tmp_path: Path) -> None:
    """The H100's torch failures (apply_'s TypeError, sspaddmm's "NYI" RuntimeError) are each
    named by a rule of manifests/torch/rules.toml; with none, all eight become `other`."""
    cell = load_cell(H100_TORCH)
    ours = load_rules("torch")
    now = recount(cell, ours, ours)
    assert (now.failed, now.other_recorded, now.other_now, now.same_now) == (8, 0, 0, 8)
    bare = recount(cell, load_rules("torch", _no_rules(tmp_path, "torch")), ours)
    assert (bare.failed, bare.other_recorded, bare.other_now) == (8, 0, 8)


def test_a_cases_own_check_keeps_its_category(tmp_path: Path) -> None:
    """jnp.array's shared memory failed the case's own ctx.check as `other`; the type refusal
    beside it came from a rule. No rules: the rule's failure becomes `other`, the check's stays."""
    cell = load_cell(JAX_PAPER)
    ours = load_rules("jax")
    assert recount(cell, ours, ours).other_now == 1
    bare = recount(cell, load_rules("jax", _no_rules(tmp_path, "jax")), ours)
    assert (bare.failed, bare.other_recorded, bare.other_now) == (2, 1, 2)


def test_the_command_prints_a_row_per_cell_and_refuses_a_missing_folder(tmp_path: Path) -> None:
    env = {"PYTHONPATH": f"{ROOT / 'runners'}:{ROOT / 'src'}"}
    done = subprocess.run(
        [sys.executable, "-m", "portbench.recategorize", str(H100_TORCH)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "| torch/gpu-h100/host (20261122-h100-host) | 8 | 0 / 8 (0.0%) |" in done.stdout
    missing = subprocess.run(
        [sys.executable, "-m", "portbench.recategorize", str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert missing.returncode == 2
    assert "does not exist" in missing.stderr and "Traceback" not in missing.stderr
