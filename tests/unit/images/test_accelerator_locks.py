"""The current profile's ROCm, XPU and macOS locks: what they pin, how they install, and
that the locks written from PyTorch's published pins are refused until resolved."""

from __future__ import annotations

from pathlib import Path

import pytest

from portbench.errors import UsageError
from portbench.images.accelerator_locks import INDEXES, require_installable
from portbench.images.build import BaseImage, build_context, image_spec
from portbench.images.install import install_parts
from portbench.images.lockgen import LOCK_INPUTS
from portbench.images.locks import load_lock, lock_path
from portbench.paths import images_dir

NEW = [
    ("jax", "rocm"),
    ("tensorflow", "rocm"),
    ("torch", "rocm"),
    ("torch", "xpu"),
    ("torch", "mps"),
]


@pytest.mark.parametrize(("framework", "flavor"), NEW, ids=[f"{f}-{d}" for f, d in NEW])
def test_each_new_lock_parses_and_matches_its_input(framework: str, flavor: str) -> None:
    lock = load_lock(lock_path("current", framework, flavor))
    assert (lock.profile, lock.framework, lock.flavor, lock.python) == (
        "current",
        framework,
        flavor,
        "3.11",
    )
    assert lock.verified == LOCK_INPUTS[("current", framework, flavor)].verified
    assert lock.fully_hashed == lock.verified  # resolved ones carry every hash, the others none


def test_jax_rocm_pins_the_rocm_plugin_of_its_own_jax_release() -> None:
    pins = load_lock(lock_path("current", "jax", "rocm")).pins
    assert pins["jax"] == pins["jaxlib"] == pins["jax-rocm7-plugin"] == pins["jax-rocm7-pjrt"]
    # The CPU cell's JAX: ROCm and CPU cells compare the same release.
    assert pins["jax"] == load_lock(lock_path("current", "jax", "cpu")).pins["jax"]


def test_tensorflow_rocm_is_pypis_newest_with_the_numpy_it_was_built_for() -> None:
    pins = load_lock(lock_path("current", "tensorflow", "rocm")).pins
    assert pins["tensorflow-rocm"] == "2.14.0.600"
    assert pins["numpy"].startswith("1.")


def test_the_mps_lock_is_pypis_macos_torch_of_the_cpu_cells_release() -> None:
    lock = load_lock(lock_path("current", "torch", "mps"))
    assert lock.pins["torch"] == "2.13.0"
    assert (
        lock.pins["torch"]
        == load_lock(lock_path("current", "torch", "cpu")).pins["torch"].split("+")[0]
    )
    spec = LOCK_INPUTS[("current", "torch", "mps")]
    assert (
        spec.platform == "aarch64-apple-darwin"
        and dict(spec.env)["MACOSX_DEPLOYMENT_TARGET"] == "14.0"
    )


@pytest.mark.parametrize("flavor", ["rocm", "xpu"])
def test_pytorchs_device_builds_install_from_pytorchs_index_alone(flavor: str) -> None:
    lock = load_lock(lock_path("current", "torch", flavor))
    assert lock.pins["torch"] == f"2.13.0+{'rocm7.2' if flavor == 'rocm' else 'xpu'}"
    parts = install_parts(lock)
    assert parts[0].index_url == INDEXES[flavor]
    assert parts[0].requirements.startswith(f"--index-url {INDEXES[flavor]}\n")
    assert "torch==" in parts[0].requirements and "numpy" not in parts[0].requirements
    files = build_context(
        image_spec("torch", flavor, "current", base="portbench/base:bookworm", ca_bundle=None),
        BaseImage("portbench/base:bookworm", "sha256:0", None).name,
    )
    assert b"context/requirements/00-index.txt" in files


@pytest.mark.parametrize("flavor", ["rocm", "xpu"])
def test_unresolved_index_locks_are_refused_in_one_sentence(flavor: str) -> None:
    with pytest.raises(UsageError) as caught:
        require_installable("current", "torch", flavor)
    message = str(caught.value)
    assert message.startswith(f"torch-{flavor}.txt (current) lists ")
    assert INDEXES[flavor] in message and "\n" not in message
    assert message.endswith(
        "resolve it on one that does (docs/accelerators.md, 'Locks from PyTorch's indexes') "
        "and run again"
    )
    # Its Dockerfile refuses it too, for `portbench images build`.
    dockerfile = (images_dir() / "dockerfiles" / f"torch-{flavor}.Dockerfile").read_text()
    assert "grep -q 'verified=false'" in dockerfile


def test_resolved_and_missing_locks_and_the_host_profile_pass() -> None:
    require_installable("current", "jax", "rocm")
    require_installable("current", "jax", "cpu")
    require_installable("host", "torch", "rocm")
    require_installable("paper", "torch", "rocm")  # no lock: the build's own sentence says so


def test_a_lock_resolved_against_its_index_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a machine that reaches PyTorch's index leaves after resolving: the same index
    # lines, verified. (A copy of the project with that lock, under PORTBENCH_HOME.)
    locks = tmp_path / "images" / "locks" / "current"
    locks.mkdir(parents=True)
    text = lock_path("current", "torch", "rocm").read_text()
    (locks / "torch-rocm.txt").write_text(text.replace("verified=false", "verified=true"))
    monkeypatch.setenv("PORTBENCH_HOME", str(tmp_path))
    require_installable("current", "torch", "rocm")
    (locks / "torch-rocm.txt").write_text(text)
    with pytest.raises(UsageError):
        require_installable("current", "torch", "rocm")
