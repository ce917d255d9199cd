"""The venv backend installs a lock with uv where it is installed, else pip, and says which."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from portbench.backends.venv import VenvBackend
from portbench.errors import EnvironmentBuildError
from portbench.images.locks import load_lock


def _wheelhouse(tmp_path: Path) -> Path:
    """A local wheel of a one-module package (written by hand), so no index is needed."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    info = "tinypkg-1.0.dist-info"
    files = {
        "tinypkg/__init__.py": "VALUE = 42\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(wheels / "tinypkg-1.0-py3-none-any.whl", "w") as wheel:
        for name, text in {**files, f"{info}/RECORD": record}.items():
            wheel.writestr(name, text)
    return wheels


def _tinypkg_value(env_dir: Path) -> str:
    """What the venv's Python imports from the wheel (proves the install, not just an exit 0)."""
    out = subprocess.run(
        [str(env_dir / "bin" / "python"), "-c", "import tinypkg; print(tinypkg.VALUE)"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


@pytest.mark.parametrize("installer", ["pip", "uv"])
def test_a_lock_installs_with_either_installer(tmp_path: Path, installer: str) -> None:
    if installer == "uv" and shutil.which("uv") is None:
        pytest.skip("uv is not installed here")
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    lock_file = tmp_path / "lock.txt"
    lock_file.write_text(
        f"# portbench-lock: profile=current framework=tiny flavor=cpu python={version} "
        "verified=yes\ntinypkg==1.0\n"
    )
    backend = VenvBackend(_wheelhouse(tmp_path), installer=installer)
    env_dir = tmp_path / "venv"
    backend.build(env_dir, sys.executable, load_lock(lock_file), "current", installer)
    assert _tinypkg_value(env_dir) == "42"


def test_auto_prefers_uv_and_an_unknown_installer_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    assert VenvBackend(installer="auto").chosen_installer() == "uv"
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert VenvBackend(installer="auto").chosen_installer() == "pip"
    from portbench.errors import BackendUnavailable, UsageError

    with pytest.raises(BackendUnavailable, match="uv is not on PATH"):
        VenvBackend(installer="uv").chosen_installer()
    with pytest.raises(UsageError, match="unknown installer"):
        VenvBackend(installer="conda")


def test_an_index_named_by_the_lock_is_used_for_its_packages_and_pip_falls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lock naming an index that does not answer: uv refuses, auto falls back to pip,
    which warns and takes the wheel from the wheelhouse (as on a machine without the index)."""
    if shutil.which("uv") is None:
        pytest.skip("uv is not installed here")
    monkeypatch.setenv("PIP_RETRIES", "0")
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    lock_file = tmp_path / "lock.txt"
    # Port 9 on loopback: refused at once, no traffic leaves the machine.
    lock_file.write_text(
        f"# portbench-lock: profile=current framework=tiny flavor=cpu python={version} "
        "verified=true\n# index: tinypkg http://127.0.0.1:9/simple\ntinypkg==1.0\n"
    )
    lock = load_lock(lock_file)
    assert lock.indexes == {"tinypkg": "http://127.0.0.1:9/simple"}
    backend = VenvBackend(_wheelhouse(tmp_path), installer="auto")
    env_dir = tmp_path / "venv"
    with pytest.raises(EnvironmentBuildError):
        backend.build(env_dir, sys.executable, lock, "current", "uv")
    assert backend.install(env_dir, sys.executable, lock, "current") == "pip"
    assert _tinypkg_value(env_dir) == "42"
