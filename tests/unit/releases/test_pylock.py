"""A release's lock as a PEP 751 pylock.toml: read into the same Lock as a profile's, and
installed in the same steps (an index's packages from it alone, then PyPI's)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from portbench.errors import UsageError
from portbench.images.install import install_parts, install_text
from portbench.images.lockgen import PYTORCH_CPU_INDEX
from portbench.images.locks import load_lock, lock_id

H = "0123456789abcdef" * 4
PYLOCK = f"""lock-version = "1.0"
created-by = "uv"
requires-python = ">=3.11"

[[packages]]
name = "torch"
version = "2.4.1+cpu"
wheels = [{{ url = "https://download.pytorch.org/whl/cpu/torch-2.4.1%2Bcpu-cp311-cp311-linux_x86_64.whl", size = 194000000, hashes = {{ sha256 = "{H}" }} }}]

[[packages]]
name = "numpy"
version = "2.1.1"
sdist = {{ url = "https://files.invalid/numpy-2.1.1.tar.gz", size = 18000000, hashes = {{ sha256 = "{H[::-1]}" }} }}
wheels = [{{ url = "https://files.invalid/numpy-2.1.1-cp311-cp311-manylinux_2_17_x86_64.whl", size = 16000000, hashes = {{ sha256 = "{"1" * 64}" }} }}]

[[packages]]
name = "Typing_Extensions"
version = "4.12.2"
sdist = {{ url = "https://files.invalid/typing_extensions-4.12.2.tar.gz", size = 80000, hashes = {{ sha256 = "{"2" * 64}" }} }}

[tool.portbench]
release = "torch==2.4.1"
flavor = "cpu"
python = "3.11"
suite = "bookworm"
platform = "x86_64-manylinux_2_36"
verified = true
build = "cpu"
as-of = "2024-09-05T19:10:42Z"
requirements = ["torch==2.4.1", "numpy"]
passed-over = ["3.13: no torch 2.4.1 wheel for it"]
sdists = []
source = "test"
recipe = 1

[tool.portbench.indexes]
torch = "{PYTORCH_CPU_INDEX}"
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "locks" / "releases" / "torch" / "2.4.1" / "pylock.cpu.toml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


def test_a_pylock_reads_as_a_release_lock(tmp_path: Path) -> None:
    lock = load_lock(_write(tmp_path, PYLOCK))
    assert (lock.kind, lock.profile, lock.framework, lock.flavor) == (
        "pylock",
        "release",
        "torch",
        "cpu",
    )
    assert (lock.release, lock.python, lock.suite, lock.build) == (
        "torch==2.4.1",
        "3.11",
        "bookworm",
        "cpu",
    )
    assert lock.pins == {"torch": "2.4.1+cpu", "numpy": "2.1.1", "typing-extensions": "4.12.2"}
    assert lock.numpy == "2.1.1" and lock.verified and lock.fully_hashed
    assert lock.requirements == ("torch==2.4.1", "numpy")
    assert lock_id(lock) == "releases/torch/2.4.1/pylock.cpu.toml"
    assert len(lock.sha256) == 64


def test_a_pylock_installs_its_index_packages_from_that_index_alone(tmp_path: Path) -> None:
    lock = load_lock(_write(tmp_path, PYLOCK))
    index, pypi = install_parts(lock)
    assert index.index_url == PYTORCH_CPU_INDEX and pypi.index_url is None
    assert index.requirements.startswith(f"--index-url {PYTORCH_CPU_INDEX}\n")
    assert f"torch==2.4.1+cpu \\\n    --hash=sha256:{H}\n" in index.requirements
    assert "numpy" not in index.requirements and "torch" not in pypi.requirements
    # A package with wheels installs a wheel: its sdist's hash is left out, so pip cannot
    # build it instead. A package with only an sdist keeps the sdist's.
    assert f"numpy==2.1.1 \\\n    --hash=sha256:{'1' * 64}\n" in pypi.requirements
    assert H[::-1] not in pypi.requirements
    assert f"typing-extensions==4.12.2 \\\n    --hash=sha256:{'2' * 64}\n" in pypi.requirements
    assert install_text(lock) == "".join(
        p.requirements.split("\n", 1)[1] if p.index_url else p.requirements for p in (index, pypi)
    )


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace('lock-version = "1.0"', 'lock-version = "2.0"'), "not a PEP 751 lock"),
        (lambda t: t.split("[tool.portbench]")[0], r"has no \[tool.portbench\] table"),
        (lambda t: t.replace('python = "3.11"\n', ""), "lacks python"),
        (
            lambda t: t.replace('torch = "https', 'torchvision = "https'),
            "names torchvision, which the lock does not pin",
        ),
        (lambda t: t.replace('version = "2.1.1"\n', ""), "package numpy is not pinned"),
        (lambda t: t + "[[[", "not a TOML file"),
    ],
)
def test_a_bad_pylock_is_one_sentence_naming_the_file(
    tmp_path: Path, edit: Callable[[str], str], message: str
) -> None:
    path = _write(tmp_path, edit(PYLOCK))
    with pytest.raises(UsageError, match=message) as caught:
        load_lock(path)
    assert str(path) in str(caught.value)
