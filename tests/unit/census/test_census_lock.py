"""Which census lock a cell layers on (the profile's own, else the framework's), for which
Python its wheels are fetched, and where a census image puts them."""

from __future__ import annotations

from pathlib import Path

import pytest

from portbench.census import environment
from portbench.census.environment import IMAGE_SITE, _dockerfile, _wheel_target, census_lock
from portbench.errors import UsageError


def test_the_paper_profile_has_its_own_torch_lock_and_the_others_share_one() -> None:
    paper = census_lock("torch", "paper")
    assert paper.parent.name == "paper"
    assert "pyyaml==" in paper.read_text()
    assert census_lock("torch", "current").name == "torch.txt"
    assert census_lock("torch", "current").parent.name == "census"
    # No profile folder for jax: the shared lock.
    assert census_lock("jax", "paper-nearest") == census_lock("jax", "current")


def test_every_requirement_of_a_census_lock_is_pinned_with_a_hash() -> None:
    locks = sorted((Path(__file__).parents[3] / "images" / "locks" / "census").rglob("*.txt"))
    assert len(locks) >= 4
    for lock in locks:
        text = lock.read_text()
        names = [line for line in text.splitlines() if line and line[0].isalpha()]
        assert names, lock
        assert all("==" in name for name in names), lock
        assert text.count("--hash=sha256:") >= len(names), lock


def test_a_framework_without_a_lock_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(environment, "images_dir", lambda: tmp_path)
    with pytest.raises(UsageError, match="is missing: the census of torch"):
        census_lock("torch", "paper")
    (tmp_path / "locks" / "census" / "paper").mkdir(parents=True)
    (tmp_path / "locks" / "census" / "torch.txt").write_text("x==1\n")
    assert census_lock("torch", "paper") == tmp_path / "locks" / "census" / "torch.txt"
    (tmp_path / "locks" / "census" / "paper" / "torch.txt").write_text("y==1\n")
    assert census_lock("torch", "paper").parent.name == "paper"


def test_wheels_are_fetched_for_the_profiles_python_and_the_images_machine() -> None:
    assert _wheel_target("paper", "amd64") == [
        "--python-version",
        "3.9",
        "--implementation",
        "cp",
        "--platform",
        "manylinux_2_17_x86_64",
    ]
    assert "--platform" not in _wheel_target("paper", None)
    # The host profile is this machine's Python: pip's own defaults are right.
    assert _wheel_target("host", "amd64") == []


def test_a_census_image_installs_beside_the_cell_environment_not_into_it() -> None:
    run = [line for line in _dockerfile().decode().splitlines() if line.startswith("RUN")]
    assert len(run) == 1
    assert f"--target {IMAGE_SITE}" in run[0]
