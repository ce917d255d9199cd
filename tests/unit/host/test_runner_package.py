"""The host imports the runner as a package (no file loaded by path) and mounts into cells
the very package it imports, alone in its folder."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT

import portbench_runner
from portbench import paths


def test_the_host_imports_this_checkouts_runner_and_mounts_it() -> None:
    assert Path(portbench_runner.__file__).resolve().parent == ROOT / "runners" / "portbench_runner"
    assert paths.runners_dir() == ROOT / "runners"


def test_an_installed_runner_is_mounted_from_a_folder_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PORTBENCH_HOME", str(tmp_path / "home"))
    site = tmp_path / "site-packages"
    package = site / "portbench_runner"
    (package / "contract").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "contract" / "__init__.py").write_text("X = 1\n")
    (site / "numpy").mkdir()  # what else a site-packages holds must not reach a cell
    assert not paths._holds_only_the_runner(site)
    staged = paths._staged_runner(package)
    assert sorted(p.name for p in staged.iterdir()) == ["portbench_runner"]
    assert (staged / "portbench_runner" / "contract" / "__init__.py").read_text() == "X = 1\n"
    assert paths._holds_only_the_runner(staged)


def test_no_runner_file_is_loaded_by_path() -> None:
    for path in (ROOT / "src" / "portbench").rglob("*.py"):
        tree = ast.parse(path.read_text())
        calls = [
            node.func.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        ]
        assert "spec_from_file_location" not in calls, path
