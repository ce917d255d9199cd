"""The scanner on a project of its own: imports, aliases, re-exports, receivers, notebooks."""

from __future__ import annotations

from pathlib import Path

import pytest

from portbench.scan.apimap import ApiMap, available_maps, load_map
from portbench.scan.engine import ScanOptions, ScanResult, scan_project
from portbench.scan.resolve import Use
from portbench.scan.walk import discover


@pytest.fixture(scope="module")
def maps() -> dict[str, ApiMap]:
    return {fw: load_map(rels[-1][1]) for fw, rels in available_maps().items()}


def _scan(project: Path, maps: dict[str, ApiMap], guess: bool = False) -> ScanResult:
    return scan_project(discover(project), maps, ScanOptions(jobs=1, guess_methods=guess))


def _at(result: ScanResult, rel: str) -> list[tuple[int, int, str, str]]:
    return sorted((u.line, u.col + 1, u.api, u.route) for u in result.uses if u.file == rel)


def test_aliases_assignment_and_module_imports(project: Path, maps: dict[str, ApiMap]) -> None:
    result = _scan(project, maps)
    uses = _at(result, "pkg/ops.py")
    # relu = F.relu: F is torch.nn.functional (import ... as); jnp is jax.numpy (from ... import).
    assert (4, 8, "torch.nn.functional.relu", "import") in uses
    assert (8, 12, "jax.numpy.sum", "import") in uses


def test_relative_imports_and_reexports(project: Path, maps: dict[str, ApiMap]) -> None:
    uses = _at(_scan(project, maps), "pkg/sub/model.py")
    relu = [u for u in uses if u[2] == "torch.nn.functional.relu"]
    # relu (from ..ops), my_relu (from .. through pkg/__init__), again (absolute pkg import)
    assert [(line, route) for line, _col, _api, route in relu] == [
        (14, "re-export"),
        (15, "re-export"),
        (16, "re-export"),
    ]
    # Linear comes through `from .layers import *`, which __all__ limits to Linear.
    assert (17, 13, "torch.nn.Linear", "re-export") in uses


def test_methods_only_on_known_receivers(project: Path, maps: dict[str, ApiMap]) -> None:
    result = _scan(project, maps)
    uses = _at(result, "pkg/sub/model.py")
    apply = [(line, route) for line, _c, api, route in uses if api == "torch.Tensor.apply_"]
    # x = torch.zeros(3) (a return the map knows), then the class path itself; y is a
    # parameter (not resolved: counted), z is rebound to z + 1 (ambiguous: not resolved).
    assert apply == [(11, "return"), (12, "import")]
    assert ("torch.nn.Linear.to", "constructor") in {(api, r) for _l, _c, api, r in uses}
    assert result.unresolved_methods["apply_"] == 2
    subclass = [(line, api) for line, _c, api, route in uses if route == "subclass"]
    assert subclass == [(27, "torch.nn.Module.register_buffer")]
    # self.act = nn.ReLU(): the attribute keeps the instance, its method resolves.
    assert (29, 18, "torch.nn.ReLU.extra_repr", "constructor") in uses


def test_guessing_is_opt_in_and_labelled(project: Path, maps: dict[str, ApiMap]) -> None:
    plain = _scan(project, maps)
    guessed = _scan(project, maps, guess=True)
    assert not [u for u in plain.uses if u.route == "guess"]
    guesses = [u for u in guessed.uses if u.route == "guess"]
    assert {(u.file, u.line, u.canonical) for u in guesses} >= {
        ("pkg/sub/model.py", 13, "torch.Tensor.apply_"),
        ("pkg/sub/model.py", 21, "torch.Tensor.apply_"),
    }


def test_unknown_api_is_reported_not_dropped(project: Path, maps: dict[str, ApiMap]) -> None:
    unknown = [u for u in _scan(project, maps).uses if u.kind == "unknown"]
    assert [(u.file, u.line, u.api, u.canonical) for u in unknown] == [
        ("pkg/sub/model.py", 22, "torch.not_a_function", None)
    ]


def test_notebook_code_cells_without_magics(project: Path, maps: dict[str, ApiMap]) -> None:
    result = _scan(project, maps)
    notebook = [u for u in result.uses if u.file == "analysis.ipynb"]
    facts = result.by_rel["analysis.ipynb"]
    assert facts.skipped_cells == 1  # the %%bash cell
    assert facts.line_map is not None
    cells = sorted({(facts.line_map[u.line - 1], u.api) for u in notebook})
    # torch.cat and torch.ones in the third line of the fourth cell (after %%time and a
    # shell escape); the help line `torch.cat?` is not code.
    assert cells == [((4, 3), "torch.cat"), ((4, 3), "torch.ones")]


def test_bad_files_and_links(project: Path, maps: dict[str, ApiMap]) -> None:
    result = _scan(project, maps)
    assert [rel for rel, _why in result.unparsed] == ["broken.py"]
    assert "line 1" in result.unparsed[0][1]
    skipped = result.discovery.skipped
    assert skipped["link out of the tree"] == 2
    assert not [u for u in result.uses if "secret" in u.file or "elsewhere" in u.file]
    big = discover(project, max_file_bytes=200)
    assert big.skipped["too large"] >= 1
    assert all(f.size <= 200 for f in big.files)


def test_facts_pickle_round_trip_in_workers(project: Path, maps: dict[str, ApiMap]) -> None:
    """Reading in worker processes gives what reading here gives."""
    here = _scan(project, maps)
    pooled = scan_project(discover(project), maps, ScanOptions(jobs=2))

    def key(uses: list[Use]) -> list[tuple[str, int, int, str]]:
        return sorted((u.file, u.line, u.col, u.api) for u in uses)

    assert key(pooled.uses) == key(here.uses)
