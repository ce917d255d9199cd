"""Every profile x framework x flavor has a lock that parses; tags follow content only."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from portbench.errors import UsageError
from portbench.images.build import ImageSpec, content_tag
from portbench.images.lockgen import LOCK_INPUTS
from portbench.images.locks import load_lock, lock_path
from portbench.images.profiles import load_profiles
from portbench.manifest import FRAMEWORKS
from portbench.profiles import PINNED_PROFILES

FLAVORS = ("cpu", "cuda", "tpu")


@pytest.mark.parametrize(
    ("profile", "framework", "flavor"),
    list(itertools.product(PINNED_PROFILES, FRAMEWORKS, FLAVORS)),
)
def test_every_cell_has_a_lock(profile: str, framework: str, flavor: str) -> None:
    lock = load_lock(lock_path(profile, framework, flavor))
    assert (lock.profile, lock.framework, lock.flavor) == (profile, framework, flavor)
    assert lock.python == load_profiles()[profile].python
    assert lock.verified == LOCK_INPUTS[(profile, framework, flavor)].verified
    if lock.verified:
        # Resolved locks pin every transitive package, each with its hashes.
        assert lock.fully_hashed
    if profile in ("paper", "paper-nearest"):
        assert lock.pins.get("numpy") == "1.23.5"


def test_the_paper_profile_pins_the_study_versions() -> None:
    assert load_lock(lock_path("paper", "torch", "cpu")).pins["torch"] == "1.12.0"
    assert load_lock(lock_path("paper", "tensorflow", "cpu")).pins["tensorflow-cpu"] == "2.11.0"
    jax = load_lock(lock_path("paper", "jax", "cpu"))
    assert (jax.pins["jax"], jax.pins["jaxlib"], jax.verified) == ("0.4.8", "0.4.7", False)
    nearest = load_lock(lock_path("paper-nearest", "jax", "cpu"))
    assert (nearest.pins["jax"], nearest.pins["jaxlib"], nearest.verified) == (
        "0.4.13",
        "0.4.13",
        True,
    )


def test_bad_locks_are_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        load_lock(tmp_path / "nope.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text("numpy==1.0\n")
    with pytest.raises(UsageError, match="the first line must be"):
        load_lock(bad)
    bad.write_text("# portbench-lock: profile=x framework=y flavor=cpu\nnumpy==1\n")
    with pytest.raises(UsageError, match="lacks python, verified"):
        load_lock(bad)


def _spec(tmp_path: Path, dockerfile: str, lock_text: str) -> ImageSpec:
    (tmp_path / "Dockerfile").write_text(dockerfile)
    lock_file = tmp_path / "lock.txt"
    lock_file.write_text(
        "# portbench-lock: profile=current framework=jax flavor=cpu python=3.11 verified=true\n"
        + lock_text
    )
    return ImageSpec(
        "jax",
        "cpu",
        load_profiles()["current"],
        load_lock(lock_file),
        tmp_path / "Dockerfile",
        "base",
        None,
        None,
    )


def test_tag_changes_with_dockerfile_lock_or_base_and_nothing_else(tmp_path: Path) -> None:
    spec = _spec(tmp_path, "FROM x\n", "numpy==2.0 --hash=sha256:aa\n")
    tag = content_tag(spec, "sha256:base1")
    assert tag == content_tag(spec, "sha256:base1")
    assert tag.startswith("portbench/jax-cpu:current-")
    assert tag != content_tag(spec, "sha256:base2")
    assert tag != content_tag(
        _spec(tmp_path, "FROM y\n", "numpy==2.0 --hash=sha256:aa\n"), "sha256:base1"
    )
    assert tag != content_tag(
        _spec(tmp_path, "FROM x\n", "numpy==2.1 --hash=sha256:aa\n"), "sha256:base1"
    )
