"""A jax whose package holds no primitive harness module: the census says so in one sentence
(the lister exits non-zero, nothing is listed), and a missing test-only package is still
named as itself."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest

jax = pytest.importorskip("jax")

from portbench_runner.census import jax_db  # noqa: E402
from portbench_runner.census.listing import main as census_list  # noqa: E402

_real_import = importlib.import_module


def _imports(missing: dict[str, str]) -> Any:
    def fake(name: str, *args: Any, **kwargs: Any) -> Any:
        if name in missing:
            raise ModuleNotFoundError(f"No module named {missing[name]!r}", name=missing[name])
        return _real_import(name, *args, **kwargs)

    return fake


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jax_db, "_module", None)
    # The lister turns x64 on for the worker's sake; not in this test process.
    monkeypatch.setattr(jax.config, "update", lambda *args: None)


def test_no_harness_module_in_the_package_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new, old = jax_db.MODULES
    # Newer path: its parent package is absent; jax 0.4.x path: the module itself.
    missing = {new: "jax._src.internal_test_util", old: old}
    monkeypatch.setattr(importlib, "import_module", _imports(missing))
    out = tmp_path / "listing.json"
    assert census_list(["--framework", "jax", "--out", str(out)]) == 2
    message = capsys.readouterr().err.strip()
    assert "ships no primitive harnesses" in message
    assert len(message.splitlines()) == 1
    assert not out.exists()


def test_a_missing_test_only_package_is_named_not_taken_for_a_missing_database(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new, old = jax_db.MODULES
    monkeypatch.setattr(
        importlib, "import_module", _imports({new: "jax._src.internal_test_util", old: "absl"})
    )
    assert census_list(["--framework", "jax", "--out", str(tmp_path / "l.json")]) == 3
    message = capsys.readouterr().err
    assert "No module named 'absl'" in message
    assert "ships no primitive harnesses" not in message


def test_jax_0_4_harnesses_load_without_the_converter_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import sys

    import jax.experimental

    new, old = jax_db.MODULES
    tests = tmp_path / "jax2tf" / "tests"
    tests.mkdir(parents=True)
    # The converter package imports TensorFlow, which a jax cell has not.
    (tmp_path / "jax2tf" / "__init__.py").write_text("import tensorflow_is_not_here\n")
    (tests / "__init__.py").write_text("")
    (tests / "primitive_harness.py").write_text("all_harnesses = ['h1', 'h2']\n")
    monkeypatch.setattr(jax.experimental, "__path__", [str(tmp_path)])
    monkeypatch.setattr(importlib, "import_module", _imports({new: "jax._src.internal_test_util"}))
    names = ("jax.experimental.jax2tf", "jax.experimental.jax2tf.tests", old)
    for name in names:
        monkeypatch.delitem(sys.modules, name, raising=False)
    try:
        assert jax_db._harnesses() == (old, ["h1", "h2"])
    finally:
        for name in names:
            sys.modules.pop(name, None)
