"""Frequency counting on a real corpus nobody here wrote: the transformers 4.46.3 wheel.

Its Python files use PyTorch, TensorFlow and Flax/JAX. The wheel is fetched with pip into
pytest's cache at test time (third-party source is not committed); the test is skipped,
with the reason, when the package index cannot be reached. The enumerations are portbench's
own output, each walked in its cell's container (tests/data/sampling/, named by profile).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from portbench.cli import main

WHEEL = "transformers-4.46.3-py3-none-any.whl"
WHEEL_SHA256 = "a12ef6f52841fd190a3e5602145b542d03507222f2c64ebb7ee92e8788093aef"
DATA = Path(__file__).resolve().parents[2] / "data" / "sampling"
#: The profile whose cell made each fixture (JAX's paper row is paper-nearest: no index
#: serves jaxlib 0.4.7 any more).
PROFILES = {"torch": "paper", "tensorflow": "paper", "jax": "paper-nearest"}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Under -p no:cacheprovider pytest has no cache attribute at all: use a temporary folder.
    cache = getattr(pytestconfig, "cache", None)
    folder = cache.mkdir("portbench-transformers") if cache else tmp_path_factory.mktemp("wheel")
    path = folder / WHEEL
    if not path.exists():
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"]
        done = subprocess.run(
            [*command, "transformers==4.46.3", "-d", str(folder)],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0 or not path.exists():
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            pytest.skip(f"cannot download transformers 4.46.3 from the package index: {tail}")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == WHEEL_SHA256
    return path


@pytest.fixture(scope="module")
def frequencies(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("freq")
    out = {}
    for framework in ("torch", "tensorflow", "jax"):
        enumeration = DATA / f"enumeration-{PROFILES[framework]}-{framework}.json.gz"
        out[framework] = folder / f"frequency-{framework}.json"
        args = ["frequency", "--corpus", str(wheel), "--enumeration", str(enumeration)]
        assert main([*args, "--out", str(out[framework])]) == 0
    return out


def _doc(path: Path) -> dict[str, object]:
    return dict(json.loads(path.read_text()))


@pytest.mark.parametrize(
    ("framework", "matched", "expected_top"),
    [
        ("torch", 686, {"torch.nn.Linear", "torch.nn.Module", "torch.cat"}),
        ("tensorflow", 166, {"tensorflow.name_scope", "tensorflow.reshape", "tensorflow.cast"}),
        ("jax", 64, {"jax.numpy.array", "jax.numpy.arange", "jax.numpy.ones"}),
    ],
)
def test_counts_on_the_real_corpus(
    frequencies: dict[str, Path], framework: str, matched: int, expected_top: set[str]
) -> None:
    doc = _doc(frequencies[framework])
    counts = doc["counts"]
    assert counts["files_read"] == 1813  # type: ignore[index]
    assert counts["files_matched"] == matched  # type: ignore[index]
    rows = sorted(doc["names"], key=lambda r: (-r["uses"], r["name"]))  # type: ignore[arg-type,index]
    top10 = {r["name"] for r in rows[:10]}
    assert expected_top <= top10


def test_sample_from_the_real_corpus_is_reproducible(
    frequencies: dict[str, Path], tmp_path: Path
) -> None:
    texts = []
    for name in ("a.toml", "b.toml"):
        args = ["sample", "--framework", "torch", "--frequency", str(frequencies["torch"])]
        assert main([*args, "--seed", "2023", "--out", str(tmp_path / name)]) == 0
        data = tomllib.loads((tmp_path / name).read_text())
        texts.append([(f["function"], f["stratum"]) for f in data["function"]])
    assert texts[0] == texts[1]
    strata = [s for _, s in texts[0]]
    assert strata.count("top20") == 20
    assert all(strata.count(str(d)) == 5 for d in range(1, 11))
