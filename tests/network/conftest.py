"""Tests that resolve against PyPI (release locks with uv, its listings): skipped with the
reason where it does not answer, or failed where PORTBENCH_REQUIRE_NETWORK=1 (CI) says they
must run. Nothing is installed: uv reads metadata only."""

from __future__ import annotations

import os
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def pypi() -> None:
    try:
        urllib.request.urlopen("https://pypi.org/simple/jax/", timeout=15).close()
    except OSError as exc:
        reason = f"PyPI does not answer from here ({exc})"
        if os.environ.get("PORTBENCH_REQUIRE_NETWORK") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PORTBENCH_HOME with this checkout's images/ and runners/, and its own state folder,
    so cached and committed release locks land in the test's folder."""
    home = tmp_path / "home"
    (home / "images" / "locks").mkdir(parents=True)
    for name in ("dockerfiles", "profiles.toml", "accelerators.toml"):
        (home / "images" / name).symlink_to(ROOT / "images" / name)
    for name in ("current", "paper", "paper-nearest", "census"):
        (home / "images" / "locks" / name).symlink_to(ROOT / "images" / "locks" / name)
    for name in ("runners", "manifests"):
        (home / name).symlink_to(ROOT / name)
    monkeypatch.setenv("PORTBENCH_HOME", str(home))
    return home
