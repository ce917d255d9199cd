"""Every profile x framework x flavor has a lock that parses; tags follow content only."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from portbench.errors import EnvironmentBuildError, UsageError
from portbench.images.build import (
    LABEL,
    BaseImage,
    ImageSpec,
    build_context,
    check_labels,
    content_key,
    content_tag,
)
from portbench.images.install import install_parts
from portbench.images.lockgen import LOCK_INPUTS, PYTORCH_CPU_INDEX
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


def test_tag_follows_dockerfile_lock_and_base_name_not_the_local_base_id(tmp_path: Path) -> None:
    """The same content on two machines gets the same tag: a debootstrap base's id differs
    per machine and is recorded in a label, never hashed into the name."""
    spec = _spec(tmp_path, "FROM x\n", "numpy==2.0 --hash=sha256:aa\n")
    here = BaseImage("portbench/base:bookworm", "sha256:" + "1" * 64, None)
    elsewhere = BaseImage("portbench/base:bookworm", "sha256:" + "2" * 64, None)
    tag = content_tag(spec, content_key(spec, here))
    assert tag.startswith("portbench/jax-cpu:current-")
    assert tag == content_tag(spec, content_key(spec, elsewhere))
    other_name = BaseImage("python:3.11-slim", here.id, None)
    other_digest = BaseImage(here.name, here.id, "portbench/base@sha256:" + "3" * 64)
    assert tag != content_tag(spec, content_key(spec, other_name))
    assert tag != content_tag(spec, content_key(spec, other_digest))
    for dockerfile, lock in (
        ("FROM y\n", "numpy==2.0 --hash=sha256:aa\n"),
        ("FROM x\n", "numpy==2.1 --hash=sha256:aa\n"),
    ):
        changed = _spec(tmp_path, dockerfile, lock)
        assert tag != content_tag(changed, content_key(changed, here))


def test_an_image_is_used_only_when_its_labels_say_this_lock_and_content() -> None:
    lock = "a" * 64
    good = {f"{LABEL}.lock-sha256": lock, f"{LABEL}.content": "c" * 64}
    check_labels(good, "img", lock_sha256=lock, content="c" * 64)
    with pytest.raises(EnvironmentBuildError, match="not built from this cell's lock"):
        check_labels({**good, f"{LABEL}.lock-sha256": "b" * 64}, "img", lock_sha256=lock)
    with pytest.raises(EnvironmentBuildError, match="another content key"):
        check_labels(good, "img", lock_sha256=lock, content="d" * 64)
    with pytest.raises(EnvironmentBuildError, match="not built from this cell's lock"):
        check_labels({}, "img", lock_sha256=lock)


def test_the_cpu_torch_lock_names_pytorchs_index_for_torch_only() -> None:
    """torch==X+cpu is served only by PyTorch's CPU index: the lock names it, for torch alone,
    so numpy and friends still come from PyPI (that index is not reachable from CI)."""
    lock = load_lock(lock_path("current", "torch", "cpu"))
    assert lock.pins["torch"].endswith("+cpu")
    assert lock.indexes == {"torch": PYTORCH_CPU_INDEX}
    parts = install_parts(lock)
    assert [p.index_url for p in parts] == [PYTORCH_CPU_INDEX, None]
    index_part, pypi_part = (p.requirements for p in parts)
    assert index_part.startswith(f"--index-url {PYTORCH_CPU_INDEX}\n")
    assert "torch==" in index_part and "numpy==" not in index_part
    assert "numpy==" in pypi_part and "torch==" not in pypi_part and "--index-url" not in pypi_part
    # Every pin lands in exactly one step, with its hashes.
    pinned = [
        line
        for p in parts
        for line in p.requirements.splitlines()
        if "==" in line and not line.startswith(" ")
    ]
    assert len(pinned) == len(lock.pins)
    assert sum(p.requirements.count("--hash=") for p in parts) == lock.path.read_text().count(
        "--hash="
    )


def test_a_lock_without_an_index_is_one_pypi_step_and_a_stray_index_line_is_refused(
    tmp_path: Path,
) -> None:
    lock = load_lock(lock_path("current", "jax", "cpu"))
    assert [p.index_url for p in install_parts(lock)] == [None]
    bad = tmp_path / "lock.txt"
    bad.write_text(
        "# portbench-lock: profile=current framework=jax flavor=cpu python=3.11 verified=true\n"
        "# index: torch https://example.invalid/simple\nnumpy==2.0\n"
    )
    with pytest.raises(UsageError, match="does not pin"):
        load_lock(bad)


def test_a_dockerfile_that_ignores_the_locks_index_is_refused(tmp_path: Path) -> None:
    spec = _spec(
        tmp_path,
        "FROM x\nRUN pip install -r /etc/portbench/lock.txt\n",
        "# index: numpy https://example.invalid/simple\nnumpy==2.0\n",
    )
    with pytest.raises(
        EnvironmentBuildError, match="does not install /etc/portbench/requirements/"
    ):
        build_context(spec, "base")
