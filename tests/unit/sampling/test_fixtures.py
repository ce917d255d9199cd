"""The committed enumerations say which cell made them, and that cell is the one named."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from portbench.paths import project_root
from portbench.sampling.enumerate import load_enumeration

DATA = Path(__file__).resolve().parents[2] / "data" / "sampling"
FIXTURES = sorted(DATA.glob("enumeration-*.json.gz"))


def test_every_framework_has_its_fixture() -> None:
    assert [p.name for p in FIXTURES] == [
        "enumeration-paper-nearest-jax.json.gz",
        "enumeration-paper-tensorflow.json.gz",
        "enumeration-paper-torch.json.gz",
    ]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_a_fixture_was_walked_in_the_cell_its_name_gives(path: Path) -> None:
    enumeration = load_enumeration(path)
    profile = path.name.removeprefix("enumeration-").removesuffix(
        f"-{enumeration.framework}.json.gz"
    )
    cell = enumeration.cell
    assert (cell["profile"], cell["backend"], cell["flavor"]) == (profile, "docker", "cpu")
    assert cell["image"]["tag"].startswith(f"portbench/{enumeration.framework}-cpu:{profile}-")
    # A lock changed since: the fixture no longer shows that profile; regenerate it
    # (docs/sampling.md, "Enumeration counts").
    lock = project_root() / cell["lock"]
    assert cell["lock_sha256"] == hashlib.sha256(lock.read_bytes()).hexdigest()
    assert len(enumeration.provenance["portbench"]["commit"]) == 40


def test_jax_fixture_is_the_cells_walk() -> None:
    """The out-of-cell walk (scipy 1.13 beside jax 0.4.13) lost jax.scipy.linalg and
    jax.scipy.stats; the cell's lock pins scipy 1.10.1, which keeps them."""
    names = {n.name for n in load_enumeration(DATA / "enumeration-paper-nearest-jax.json.gz").names}
    assert "jax.scipy.linalg.lu" in names
    assert len(names) == 1367
    assert "jax.numpy.float32" not in names  # a dtype, not listed
