"""Regressions between releases on synthetic stores: flips read directly, flaky cases apart,
kinds of evidence never merged, and ``--fail-on regression`` for CI."""

from __future__ import annotations

from pathlib import Path

import pytest

from portbench.cli import main
from portbench.scoreboard.commands import build_reports

from ..store.cells import CaseSpec, CellSpec, write_cell


def _cell(runs: Path, release: str, cases: list[CaseSpec], run: str, **extra: object) -> None:
    day = {"1.0": 10, "1.1": 11, "1.2": 12, "2.0": 13}[release]
    spec = CellSpec(
        "torch", "cpu", release, cases, started_at=f"2026-11-{day}T10:00:00.000+00:00", **extra
    )  # type: ignore[arg-type]
    write_cell(runs, spec, run)


def _store(tmp_path: Path, newest: list[CaseSpec], rerun: list[CaseSpec] | None = None) -> Path:
    runs = tmp_path / "runs"
    ok = [
        CaseSpec("torch.add::float16"),
        CaseSpec("torch.add::float32"),
        CaseSpec("torch.log1p::float16", "fail", "not implemented for 'Half'"),
    ]
    _cell(runs, "1.0", ok, "a")
    fixed = [
        CaseSpec("torch.add::float16"),
        CaseSpec("torch.add::float32"),
        CaseSpec("torch.log1p::float16"),
    ]
    _cell(runs, "1.1", fixed, "b", python="3.10.1", numpy="1.26.0")
    _cell(runs, "2.0", newest, "c", python="3.12.0", numpy="2.4.6")
    if rerun is not None:
        _cell(runs, "2.0", rerun, "d", host="other", python="3.12.0", numpy="2.4.6")
    store = tmp_path / "s.duckdb"
    assert main(["ingest", "--store", str(store), str(runs)]) == 0
    return store


def test_a_case_that_breaks_in_the_newest_release_fails_the_check_and_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    newest = [
        CaseSpec("torch.add::float16", "fail", "result outside tolerance", "precision"),
        CaseSpec("torch.add::float32"),
        CaseSpec("torch.log1p::float16"),
    ]
    store = _store(tmp_path, newest)
    code = main(
        [
            "scoreboard",
            "--store",
            str(store),
            "--out",
            str(tmp_path / "site"),
            "--fail-on",
            "regression",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "2.0 breaks torch.add::float16, which passed in 1.1: result outside tolerance" in out
    assert "Python 3.10.1 → 3.12.0" in out and "numpy 1.26.0 → 2.4.6" in out
    page = (tmp_path / "site" / "regressions.html").read_text()
    assert "torch.add::float16" in page and "1 broke" in page
    # The fix between 1.0 and 1.1 is on the page as a fix, never a regression.
    _, reports = build_reports(store)
    (report,) = reports
    first, second = report.pairs
    assert [f.case for f in first.of("fixed")] == ["torch.log1p::float16"] and not first.of("broke")
    assert [f.case for f in second.of("broke")] == ["torch.add::float16"]


def test_a_flaky_case_is_reported_apart_and_never_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    passing = [
        CaseSpec("torch.add::float16"),
        CaseSpec("torch.add::float32"),
        CaseSpec("torch.log1p::float16"),
    ]
    flaky = [
        CaseSpec("torch.add::float16", "fail", "once in a while"),
        CaseSpec("torch.add::float32"),
        CaseSpec("torch.log1p::float16"),
    ]
    store = _store(tmp_path, passing, rerun=flaky)
    code = main(
        [
            "scoreboard",
            "--store",
            str(store),
            "--out",
            str(tmp_path / "site"),
            "--fail-on",
            "regression",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "flaky: torch on cpu: torch.add::float16 is flaky in 2.0:" in out
    assert "fail (d/torch-cpu-current)" in out and "pass (c/torch-cpu-current)" in out
    assert "regression:" not in out
    _, reports = build_reports(store)
    pair = reports[0].pairs[-1]
    assert not pair.flips and [s.case for _, s in pair.flaky] == ["torch.add::float16"]


def test_a_case_whose_code_changed_is_not_a_flip(tmp_path: Path) -> None:
    newest = [
        CaseSpec("torch.add::float16", "fail", "new check", code="another code"),
        CaseSpec("torch.add::float32"),
        CaseSpec("torch.log1p::float16"),
    ]
    store = _store(tmp_path, newest)
    assert (
        main(
            [
                "scoreboard",
                "--store",
                str(store),
                "--out",
                str(tmp_path / "site"),
                "--fail-on",
                "regression",
            ]
        )
        == 0
    )
    _, reports = build_reports(store)
    assert reports[0].pairs[-1].code_changed == ["torch.add::float16"]


def test_predicted_evidence_is_its_own_series_never_merged_with_the_observed(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs"
    write_cell(
        runs,
        CellSpec("jax", "tpu", "0.6.2", [CaseSpec("jax.numpy.linalg.eig::float32")]),
        "observed",
    )
    write_cell(
        runs,
        CellSpec(
            "jax",
            "cpu",
            "0.6.2",
            [
                CaseSpec(
                    "jax.numpy.linalg.eig::float32",
                    "fail",
                    "no lowering for tpu",
                    "not_implemented",
                )
            ],
            predicted="tpu",
            started_at="2026-11-21T10:00:00.000+00:00",
        ),
        "predicted",
    )
    write_cell(
        runs,
        CellSpec(
            "jax",
            "cpu",
            "0.7.0",
            [CaseSpec("jax.numpy.linalg.eig::float32")],
            predicted="tpu",
            started_at="2026-11-22T10:00:00.000+00:00",
        ),
        "predicted2",
    )
    store = tmp_path / "s.duckdb"
    assert main(["ingest", "--store", str(store), str(runs)]) == 0
    _, reports = build_reports(store)
    by_kind = {r.key.kind: r for r in reports}
    assert set(by_kind) == {"observed", "predicted"}
    assert {r.key.target for r in reports} == {"tpu"}
    observed, predicted = by_kind["observed"], by_kind["predicted"]
    assert [v.release for v in observed.views] == ["0.6.2"]
    assert [v.cases["jax.numpy.linalg.eig::float32"].outcome for v in predicted.views] == [
        "fail",
        "pass",
    ]
    assert [f.kind for f in predicted.pairs[0].flips] == ["fixed"]
    assert main(["scoreboard", "--store", str(store), "--out", str(tmp_path / "site")]) == 0
    html = (tmp_path / "site" / "index.html").read_text()
    assert "observed on the device" in html and "predicted without the hardware" in html


def test_soft_placement_is_a_series_of_its_own_never_runs_of_the_same_release(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs"
    case = "tf.sparse.to_dense::float32"
    write_cell(
        runs,
        CellSpec("tensorflow", "gpu-t4", "2.11.0", [CaseSpec(case, "fail", "no GPU kernel")]),
        "standard",
    )
    write_cell(
        runs,
        CellSpec(
            "tensorflow", "gpu-t4", "2.11.0", [CaseSpec(case)], soft_placement=True, host="soft"
        ),
        "soft",
    )
    store = tmp_path / "s.duckdb"
    assert main(["ingest", "--store", str(store), str(runs)]) == 0
    _, reports = build_reports(store)
    titles = sorted(r.key.title for r in reports)
    assert titles == ["tensorflow on gpu-t4", "tensorflow on gpu-t4, soft placement"]
    assert all(not view.flaky for r in reports for view in r.views)
