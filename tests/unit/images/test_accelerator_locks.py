"""The current profile's ROCm, XPU and macOS locks: what they pin, how they install, and
that the locks written from PyTorch's published pins are refused until resolved."""

from __future__ import annotations

import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from portbench.errors import EnvironmentBuildError, UsageError
from portbench.images.accelerator_locks import INDEXES, require_installable
from portbench.images.build import BaseImage, build_context, image_spec
from portbench.images.install import install_parts
from portbench.images.lockgen import CURRENT, LOCK_INPUTS, current_version, write_lock
from portbench.images.locks import load_lock, lock_path
from portbench.images.refresh import refresh_current
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


def test_resolved_locks_and_the_host_profile_pass() -> None:
    require_installable("current", "jax", "rocm")
    require_installable("current", "jax", "cpu")
    require_installable("host", "torch", "rocm")
    require_installable("host", "jax", "xpu")  # the user's own install: the cell says


def test_a_framework_a_profile_pins_nothing_for_is_one_sentence() -> None:
    with pytest.raises(UsageError) as caught:
        require_installable("current", "jax", "xpu")
    assert str(caught.value) == (
        "profile 'current' pins no jax build for xpu (no jax-xpu.txt; it pins jax for cpu, "
        "cuda, rocm, tpu): run it with your own install (--profile host), or pick another "
        "accelerator"
    )
    with pytest.raises(UsageError, match="pins no tensorflow build for mps"):
        require_installable("current", "tensorflow", "mps")


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


@pytest.mark.parametrize(("framework", "flavor"), NEW, ids=[f"{f}-{d}" for f, d in NEW])
def test_the_new_locks_are_currents_like_the_others(framework: str, flavor: str) -> None:
    # `images lock` re-resolves the version the lock pins; `images refresh` may move it.
    assert (framework, flavor) in CURRENT
    version = current_version(framework, flavor)
    pins = load_lock(lock_path("current", framework, flavor)).pins
    assert pins[CURRENT[(framework, flavor)].package].split("+")[0] == version
    assert any(version in r for r in LOCK_INPUTS[("current", framework, flavor)].requirements)


def test_refresh_keeps_the_locks_written_from_pytorchs_pins() -> None:
    def never(*_: object) -> bool:
        raise AssertionError("an unresolved lock needs no index")

    for kept in refresh_current(["torch-rocm", "torch-xpu"], dry_run=True, index_answers=never):
        assert (kept.before, kept.after, kept.written) == ("2.13.0", "2.13.0", False)
        assert "written from documented pins" in kept.note


def test_refresh_moves_the_mps_lock_only_to_the_cpu_locks_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A copy of the locks where the CPU lock pins an older torch than the MPS lock: PyPI's
    # newest (newer than both) is not a candidate, and the MPS lock never moves backwards.
    locks = tmp_path / "images" / "locks" / "current"
    locks.mkdir(parents=True)
    for name in ("torch-cpu", "torch-mps"):
        (locks / f"{name}.txt").write_text(lock_path("current", "torch", name[6:]).read_text())
    cpu = (locks / "torch-cpu.txt").read_text()
    (locks / "torch-cpu.txt").write_text(cpu.replace("torch==2.13.0+cpu", "torch==2.12.0+cpu"))
    monkeypatch.setenv("PORTBENCH_HOME", str(tmp_path))
    assert current_version("torch", "cpu") == "2.12.0"
    (kept,) = refresh_current(["torch-mps"], dry_run=True, index_answers=lambda: False)
    assert (kept.before, kept.after, kept.changes) == ("2.13.0", "2.13.0", [])
    assert kept.note == "follows torch-cpu"


def _macos_wheel(folder: Path) -> None:
    """A wheel only macOS 14 and later on arm64 install (as PyPI's torch is tagged)."""
    folder.mkdir()
    info = "portbench_fake_mac-1.0.dist-info/"
    wheel = folder / "portbench_fake_mac-1.0-py3-none-macosx_14_0_arm64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(
            info + "METADATA", "Metadata-Version: 2.1\nName: portbench-fake-mac\nVersion: 1.0\n"
        )
        archive.writestr(
            info + "WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-macosx_14_0_arm64\n",
        )
        archive.writestr(info + "RECORD", "")


def test_the_macos_lock_resolves_under_its_deployment_target(tmp_path: Path) -> None:
    # The mps lock's platform and MACOSX_DEPLOYMENT_TARGET reach uv (offline, from a wheel
    # folder): without the target uv resolves for an older macOS, which the wheel's tag
    # excludes, as it excludes PyPI's torch.
    _macos_wheel(tmp_path / "wheels")
    mps = LOCK_INPUTS[("current", "torch", "mps")]
    spec = replace(
        mps,
        requirements=("portbench-fake-mac==1.0",),
        find_links=str(tmp_path / "wheels"),
        env=(*mps.env, ("UV_OFFLINE", "1")),
    )
    written = write_lock("current", "torch", "mps", spec, tmp_path / "torch-mps.txt")
    lock = load_lock(written)
    assert (lock.flavor, lock.verified, lock.fully_hashed) == ("mps", True, True)
    assert lock.pins == {"portbench-fake-mac": "1.0"}
    without = replace(spec, env=(("UV_OFFLINE", "1"),))
    with pytest.raises(EnvironmentBuildError) as caught:
        write_lock("current", "torch", "mps", without, tmp_path / "other.txt")
    assert "portbench-fake-mac" in str(caught.value) and "\n" not in str(caught.value)
