"""``portbench scan --store``: evidence from a real DuckDB store that ``portbench ingest``
made, narrowed to what the project reaches, giving the run directories' verdicts."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from portbench.cli import main
from portbench.errors import ResultsError
from portbench.scan.sources import RunDirectories
from portbench.scan.stored import StoreEvidence

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

from store_data import CaseSpec, CellSpec, write_cell  # noqa: E402

REFERENCE = ROOT / "results" / "reference"
H100 = REFERENCE / "20261122-h100-host"
CPU = REFERENCE / "20261122-cpu-host"

PROJECT = """
import jax.scipy.stats
import torch
from jax import numpy as jnp


def square(f):
    x = torch.ones(3)
    x.apply_(f)
    return torch.cat([x, x])


def cdf(x):
    return jax.scipy.stats.norm.cdf(jnp.sum(x))
"""


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], Path]:
    """The reference runs (torch and JAX, CPU and H100) and two tpu-v3 cells of torch
    2.13.0, one predicted (issue 30's id: ``torch/tpu-v3-predicted/current``) where
    ``apply_`` fails, one observed where it passes; as run directories and as a store."""
    root = tmp_path_factory.mktemp("evidence")
    cases = [
        CaseSpec("torch.Tensor.apply_::float32", "fail", "apply_ is only implemented on CPU"),
        CaseSpec("torch.cat::float32"),
    ]
    write_cell(root / "runs", CellSpec("torch", "tpu-v3", "2.13.0", cases, predicted="tpu-v3"))
    observed = [CaseSpec("torch.Tensor.apply_::float32"), CaseSpec("torch.cat::float32")]
    write_cell(root / "runs", CellSpec("torch", "tpu-v3", "2.13.0", observed), run="observed")
    runs = [H100, CPU, root / "runs" / "run", root / "runs" / "observed"]
    store = root / "store.duckdb"
    assert main(["ingest", "--store", str(store), "--jobs", "1", *map(str, runs)]) == 0
    return runs, store


def _project(root: Path) -> Path:
    project = root / "proj"
    project.mkdir()
    (project / "train.py").write_text(PROJECT.lstrip(), encoding="utf-8")
    return project


def _scan(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = main(["scan", *args, "--format", "json", "--jobs", "1"])
    out = capsys.readouterr().out
    assert code == 0
    report: dict[str, Any] = json.loads(out)
    return report


def _verdicts(report: dict[str, Any]) -> dict[str, Any]:
    """Every API's verdicts, each source named by run and cell folder (a store keeps no
    path of the machine the cells were read on)."""
    out = {}
    for api in report["apis"]:
        verdicts = {}
        for target, verdict in api["verdicts"].items():
            sources = sorted("/".join(Path(s).parts[-2:]) for s in verdict["sources"])
            verdicts[target] = {**verdict, "sources": sources}
        out[api["api"]] = verdicts
    return out


@pytest.mark.parametrize("release", ["newest", "per-target"])
def test_the_store_gives_the_run_directories_verdicts(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    evidence: tuple[list[Path], Path],
    release: str,
) -> None:
    runs, store = evidence
    project = _project(tmp_path)
    from_runs = _scan(capsys, str(project), "--runs", *map(str, runs), "--release", release)
    from_store = _scan(capsys, str(project), "--store", str(store), "--release", release)
    assert from_store["summary"]["evidence"].startswith(f"store {store}: ")
    assert from_store["summary"]["evidence_problems"] == []
    assert from_store["targets"] == from_runs["targets"] == ["cpu", "gpu-h100", "tpu-v3"]
    assert from_store["releases"] == from_runs["releases"]
    verdicts = _verdicts(from_store)
    assert verdicts == _verdicts(from_runs)
    # Not an empty agreement: function-level verdicts on every target, the JAX pattern
    # (jax.scipy.stats.*.cdf) reaching norm.cdf through the narrowed query.
    assert verdicts["jax.scipy.stats.norm.cdf"]["gpu-h100"]["level"] == "function"
    if release == "per-target":
        assert verdicts["torch.Tensor.apply_"]["gpu-h100"]["status"] == "fails"
        assert verdicts["torch.Tensor.apply_"]["cpu"]["status"] == "works"


def test_evidence_kinds_stay_apart_in_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], evidence: tuple[list[Path], Path]
) -> None:
    _runs, store = evidence
    report = _scan(capsys, str(_project(tmp_path)), "--store", str(store), "--target", "tpu-v3")
    apply = _verdicts(report)["torch.Tensor.apply_"]["tpu-v3"]
    # The predicted cell speaks for tpu-v3 (its id's suffix dropped), beside the observed
    # one, each with its own verdict; the observed one is the headline.
    assert (apply["status"], apply["kind"], apply["release"]) == ("works", "observed", "2.13.0")
    assert [(k["kind"], k["status"]) for k in apply["per_kind"]] == [
        ("observed", "works"),
        ("predicted", "fails"),
    ]


def test_the_store_is_asked_only_for_the_functions_named(
    evidence: tuple[list[Path], Path],
) -> None:
    runs, store = evidence
    source, cells = StoreEvidence(store), RunDirectories(runs)
    held = source.functions("torch")
    assert "torch.Tensor.apply_" in held and len(held) > 10
    got = source.cases("torch", ["torch.Tensor.apply_"])
    assert {c.function for c in got} == {"torch.Tensor.apply_"}
    expected = [c for c in cells.cases("torch") if c.function == "torch.Tensor.apply_"]
    key = lambda c: (c.accelerator, c.case, c.kind, c.outcome)  # noqa: E731
    assert sorted(map(key, got)) == sorted(map(key, expected))
    # Every cell of the framework is read (the releases and targets it holds), only the
    # records were narrowed.
    assert source.held("torch") == cells.held("torch")
    assert source.describe() == f"store {store}: 4 cell(s) of torch"


def test_the_store_at_its_default_place_is_read_when_there_is_one(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    evidence: tuple[list[Path], Path],
) -> None:
    _runs, store = evidence
    home = tmp_path / "home"
    (home / "results").mkdir(parents=True)
    for name in ("images", "manifests", "runners"):
        (home / name).symlink_to(ROOT / name)
    monkeypatch.setenv("PORTBENCH_HOME", str(home))
    project = _project(tmp_path)
    report = _scan(capsys, str(project))
    assert report["summary"]["evidence"].startswith("run directories")
    shutil.copy(store, home / "results" / "store.duckdb")
    report = _scan(capsys, str(project))
    assert report["summary"]["evidence"].startswith(f"store {home / 'results' / 'store.duckdb'}")
    assert _verdicts(report)["torch.Tensor.apply_"]["cpu"]["status"] == "works"


@pytest.mark.parametrize(
    ("args", "expected", "code"),
    [
        (["--store", "{tmp}/none.duckdb"], "there is no store there", 2),
        (["--store", "{store}", "--runs", "{tmp}"], "pass --store or --runs, not both", 2),
        (["--store", "{tmp}/garbage.duckdb"], "does not open as a store", ResultsError.exit_code),
    ],
)
def test_a_wrong_store_is_one_sentence(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    evidence: tuple[list[Path], Path],
    args: list[str],
    expected: str,
    code: int,
) -> None:
    (tmp_path / "garbage.duckdb").write_bytes(b"not a database\n" * 100)
    args = [a.format(tmp=tmp_path, store=evidence[1]) for a in args]
    assert main(["scan", str(_project(tmp_path)), *args]) == code
    err = capsys.readouterr().err
    assert expected in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
