"""Every failure the study's reports record has a portbench case or a written reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from portbench.errors import ManifestError
from portbench.manifest import FRAMEWORKS, load_manifest
from portbench.reachability import Failure, load_table, recorded_failures, resolve


@pytest.fixture(scope="module")
def failures() -> list[Failure]:
    return recorded_failures()


def test_the_archive_records_the_known_failures(failures: list[Failure]) -> None:
    keys = {(f.framework, f.accelerator, f.key) for f in failures}
    assert (
        "torch",
        "gpu-t4",
        "smoothl1loss_test.py::TestNNDeviceTypeCUDA::test_smooth_l1_loss_bfloat16_cuda",
    ) in keys
    # JAX's TPU report is a copy of its T4 report: counted once.
    assert sum(1 for f in failures if f.framework == "jax") == 140


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_every_recorded_failure_is_reached_or_explained(
    framework: str, failures: list[Failure]
) -> None:
    result = resolve(
        framework, failures, load_table(framework), set(load_manifest(framework).case_ids())
    )
    assert result.total > 0
    assert [f"{f.accelerator} {f.key}" for f in result.missing] == []
    assert [f"entry {e.index}: {e.match}" for e in result.stale] == []
    assert [f"entry {e.index}: {c}" for e, c in result.unknown_cases] == []


def test_smooth_l1_bfloat16_is_reached_by_a_bfloat16_case(failures: list[Failure]) -> None:
    result = resolve("torch", failures, load_table("torch"), set(load_manifest("torch").case_ids()))
    entries = [e for f, e in result.reached if "smooth_l1_loss_bfloat16_cuda" in f.key]
    assert entries and all("bfloat16" in c for c in entries[0].cases)


def test_missing_stale_and_unknown_are_reported(tmp_path: Path, failures: list[Failure]) -> None:
    folder = tmp_path / "torch"
    folder.mkdir()
    (folder / "reachability.toml").write_text(
        'schema = 1\nframework = "torch"\n'
        "[[failure]]\nmatch = 'smoothl1loss_test'\ncases = [\"torch.nn.SmoothL1Loss::nope\"]\n"
        "[[failure]]\nmatch = 'no_such_test'\nreason = \"old\"\n"
    )
    result = resolve("torch", failures, load_table("torch", tmp_path), {"x::y"})
    assert result.missing  # everything but smoothl1loss
    assert [e.match for e in result.stale] == ["no_such_test"]
    assert [c for _, c in result.unknown_cases] == ["torch.nn.SmoothL1Loss::nope"]


def test_an_entry_needs_cases_or_a_reason(tmp_path: Path) -> None:
    folder = tmp_path / "jax"
    folder.mkdir()
    (folder / "reachability.toml").write_text(
        "schema = 1\nframework = \"jax\"\n[[failure]]\nmatch = 'x'\n"
    )
    with pytest.raises(ManifestError, match="either 'cases' or a 'reason'"):
        load_table("jax", tmp_path)
