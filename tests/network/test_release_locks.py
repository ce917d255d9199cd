"""Release locks resolved for real: uv against PyPI (metadata only, nothing installed)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.version import Version

from portbench.images.install import install_parts
from portbench.images.locks import lock_id
from portbench.releases.locking import (
    ReleaseUnavailable,
    cached_lock_path,
    committed_lock_path,
    release_lock,
)
from portbench.releases.spec import parse_release

pytestmark = pytest.mark.network


def _tool(path: Path) -> dict[str, object]:
    return dict(tomllib.loads(path.read_text())["tool"]["portbench"])


def test_a_release_lock_takes_the_newest_python_with_wheels_and_the_numpy_of_its_day(
    pypi: None, home: Path
) -> None:
    release = parse_release("jax==0.4.13")
    notes: list[str] = []
    lock = release_lock(release, "cpu", notes.append)
    # jaxlib 0.4.13 has wheels for CPython 3.9-3.11, none for 3.13: bookworm's 3.11.
    assert (lock.python, lock.suite, lock.release) == ("3.11", "bookworm", "jax==0.4.13")
    tool = _tool(lock.path)
    assert tool["passed-over"] == ["3.13: no jaxlib 0.4.13 wheel for it"]
    # Dependencies as PyPI served them the day after jax 0.4.13 came out (2023-06-23):
    # numpy 1.x, not today's 2.x (the pinned packages are exempt: jaxlib 0.4.13's wheels
    # were uploaded to PyPI again in 2025).
    assert lock.as_of is not None and lock.as_of.startswith("2023-06-24")
    assert Version(lock.pins["numpy"]) < Version("2")
    assert (lock.pins["jax"], lock.pins["jaxlib"]) == ("0.4.13", "0.4.13")
    # jax 0.4.13 shipped only an sdist (pure Python): taken from it, and said so.
    assert tool["sdists"] == ["jax"]
    assert lock.fully_hashed and lock.verified and lock.build == "pypi"
    (part,) = install_parts(lock)
    assert part.index_url is None and part.requirements.count("==") == len(lock.pins)
    assert lock.path == cached_lock_path(release, "cpu")
    assert lock_id(lock) == "releases/jax/0.4.13/pylock.cpu.toml"
    assert lock.sha256 == hashlib.sha256(lock.path.read_bytes()).hexdigest()
    assert notes == ["resolving the lock of jax==0.4.13 (cpu) with uv"]

    # Asked again: the cached lock, not a new resolution.
    stamp = lock.path.stat().st_mtime_ns
    notes.clear()
    assert release_lock(release, "cpu", notes.append).sha256 == lock.sha256
    assert lock.path.stat().st_mtime_ns == stamp and notes == []
    # A committed lock (a reference run's) comes first.
    committed = committed_lock_path(release, "cpu")
    committed.parent.mkdir(parents=True)
    committed.write_text(lock.path.read_text().replace("source = ", 'source = "committed" #'))
    assert release_lock(release, "cpu").path == committed


def test_a_dependency_with_no_wheel_that_day_is_taken_from_its_sdist(
    pypi: None, home: Path
) -> None:
    # TensorFlow 2.12.1 needs jax (sdist-only until 0.4.14) and caps wrapt at 1.14, whose
    # last wheels are for Python 3.10: both come from sdists, and the release keeps 3.11.
    lock = release_lock(parse_release("tensorflow==2.12.1"), "cpu")
    assert lock.python == "3.11" and lock.pins["tensorflow-cpu"] == "2.12.1"
    assert lock.pins["wrapt"] == "1.14.1"
    assert sorted(_tool(lock.path)["sdists"]) == ["jax", "wrapt"]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("release", "sentence"),
    [
        ("jax==0.4.7", "jax==0.4.7 needs jaxlib 0.4.7, which no index serves"),
        ("jax==99.0", "jax==99.0, which no index serves"),
        (
            "tensorflow==2.3.0",
            "tensorflow-cpu 2.3.0 has no wheel for Python 3.13, 3.11, 3.9 on linux",
        ),
    ],
)
def test_a_release_no_index_serves_is_one_sentence_and_no_lock(
    pypi: None, home: Path, release: str, sentence: str
) -> None:
    with pytest.raises(ReleaseUnavailable) as caught:
        release_lock(parse_release(release), "cpu")
    assert sentence in str(caught.value)
    assert "\n" not in str(caught.value)
    assert not cached_lock_path(parse_release(release), "cpu").exists()


def test_the_command_says_it_in_one_sentence_without_a_traceback(pypi: None, home: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "portbench", "images", "lock", "--release", "jax==0.4.7"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
        check=False,
    )
    assert proc.returncode == 5
    assert "error: jax==0.4.7 needs jaxlib 0.4.7, which no index serves" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
