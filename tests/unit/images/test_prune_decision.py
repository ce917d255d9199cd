"""Which images `images prune` removes: cell images by their profile lock, census images by
both the cell lock they inherit and their own census lock."""

from __future__ import annotations

from portbench.census.environment import LABEL as CENSUS_LABEL
from portbench.images.build import LABEL
from portbench.images.commands import is_stale

LIVE = {"cell-lock"}
CENSUS = {"census-lock"}


def _cell(lock: str) -> dict[str, str]:
    return {f"{LABEL}.lock-sha256": lock, f"{LABEL}.profile": "current"}


def _census(cell_lock: str, census_lock: str | None) -> dict[str, str]:
    labels = {**_cell(cell_lock), f"{CENSUS_LABEL}.cell-image": "sha256:abc"}
    if census_lock is not None:
        labels[f"{CENSUS_LABEL}.lock-sha256"] = census_lock
    return labels


def test_a_cell_image_lives_as_long_as_its_profile_lock() -> None:
    assert not is_stale(_cell("cell-lock"), LIVE, CENSUS)
    assert is_stale(_cell("old-lock"), LIVE, CENSUS)


def test_a_census_image_needs_both_its_cell_lock_and_its_census_lock() -> None:
    assert not is_stale(_census("cell-lock", "census-lock"), LIVE, CENSUS)
    # The census lock changed (a new census image was built beside it): this one is stale,
    # although the cell lock label it inherited from its cell image is still live.
    assert is_stale(_census("cell-lock", "old-census-lock"), LIVE, CENSUS)
    assert is_stale(_census("old-lock", "census-lock"), LIVE, CENSUS)
    # Built before census images said which census lock they hold.
    assert is_stale(_census("cell-lock", None), LIVE, CENSUS)
