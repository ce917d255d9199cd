"""A new user's mistakes cost a second and one sentence: a bad selection or an unwritable
results folder is refused before any environment is built, and ``--resume DIR`` alone finds
the cell and how it ran."""

from __future__ import annotations

import errno
import hashlib
import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from portbench import cellrun, cli
from portbench.commands import bench, matrix
from portbench.errors import ResultsError, UsageError
from portbench.plan import PlanOptions, plan_from_case_files

CASES = 'from portbench_runner.api import case\n\n@case("one")\ndef one(ctx):\n    pass\n'


class _NeverBuilt:
    """A backend that records every environment it is asked to build, and builds none."""

    def __init__(self, name: str, built: list[str]) -> None:
        self.name = name
        self.isolation = "none"
        self.built = built

    def available(self) -> tuple[bool, str]:
        return True, ""

    def prepare(self, framework: str, flavor: str, profile: str) -> Any:
        self.built.append(f"{framework}/{flavor}/{profile}")
        raise AssertionError("an environment was built")


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    monkeypatch.setattr(cellrun, "make_backend", lambda name, *a, **k: _NeverBuilt(name, calls))
    return calls


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli.main(list(args))
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def _cell(run_dir: Path, framework: str = "jax", backend: str = "host") -> Path:
    """A cell directory holding the plan a bench run would have written."""
    plan = plan_from_case_files(run_dir / "src", {"probe": CASES}, framework, PlanOptions())
    plan = replace(plan, backend=backend)
    cell = run_dir / f"{framework}-cpu-host"
    cell.mkdir(parents=True)
    (cell / "plan.json").write_text(json.dumps(plan.to_json()))
    return cell


NEW_JAX = ("bench", "--framework", "jax", "--accelerator", "cpu", "--profile", "current")


# -- item: the selection is checked before any environment is built ------------------------


@pytest.mark.parametrize(
    ("option", "fragment"),
    [
        (["--functions", "jax.numpy.ad"], "jax.numpy.ad not in the jax manifest"),
        (["--case", "jax.numpy.add::nope"], "case 'jax.numpy.add::nope' is not in the jax"),
    ],
)
def test_bench_refuses_a_typo_before_building(
    built: list[str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    option: list[str],
    fragment: str,
) -> None:
    run = tmp_path / "run"
    code, err = _main(capsys, *NEW_JAX, "--backend", "venv", "--run-dir", str(run), *option)
    assert code == UsageError.exit_code
    assert fragment in err
    assert built == []
    assert not run.exists()


def test_resume_refuses_a_selection_before_building(
    built: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _cell(tmp_path / "run")
    args = ("bench", "--resume", str(tmp_path / "run"), "--functions", "jax.numpy.add")
    code, err = _main(capsys, *args)
    assert code == UsageError.exit_code
    assert "--functions cannot go with --resume" in err
    assert built == []


def test_matrix_refuses_a_typo_before_any_cell(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ran: list[Any] = []
    monkeypatch.setattr(matrix, "is_present", lambda acc: (acc.id == "cpu", "cpu"))
    monkeypatch.setattr(matrix, "run_cell", lambda request, console: ran.append(request))
    run = tmp_path / "run"
    args = ("matrix", "--run-dir", str(run), "--functions", "jax.numpy.add", "torch.nosuch")
    code, err = _main(capsys, *args)
    assert code == UsageError.exit_code
    assert "function torch.nosuch is in no manifest of torch, tensorflow, jax" in err
    assert ran == [] and not run.exists()


def test_matrix_gives_each_framework_its_share_and_lists_the_rest(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from portbench.cellrun import CellRunResult

    ran: list[Any] = []

    def fake_run_cell(request: Any, console: Any) -> CellRunResult:
        ran.append(request)
        counts = {"pass": 1, "partial": 0, "complete": 0, "untested": 0}
        return CellRunResult(tmp_path, 0, {"pass": 1}, counts, 0.1)

    monkeypatch.setattr(matrix, "is_present", lambda acc: (acc.id == "cpu", "cpu"))
    monkeypatch.setattr(matrix, "run_cell", fake_run_cell)
    run = tmp_path / "run"
    code, _ = _main(capsys, "matrix", "--run-dir", str(run), "--functions", "jax.numpy.add")
    assert code == 0
    assert [(r.framework, r.options.functions) for r in ran] == [("jax", ("jax.numpy.add",))]
    document = json.loads((run / "matrix.json").read_text())
    status = {c["cell"]: c["status"] for c in document["cells"]}
    assert status["torch/cpu/current"] == "not selected"
    assert status["tensorflow/cpu/current"] == "not selected"


# -- item: --resume RUN_DIR alone is enough ------------------------------------------------


def _resumed(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Stop ``bench`` at run_cell and keep the request it was given."""
    asked: list[Any] = []

    def stop(request: Any, console: Any) -> Any:
        asked.append(request)
        raise UsageError("stopped by the test")

    monkeypatch.setattr(bench, "run_cell", stop)
    return asked


def test_resume_alone_takes_the_cell_from_its_plan(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    asked = _resumed(monkeypatch)
    cell = _cell(tmp_path / "run", backend="venv")
    _main(capsys, "bench", "--resume", str(tmp_path / "run"))
    (request,) = asked
    assert (request.framework, request.accelerator, request.profile) == ("jax", "cpu", "host")
    assert request.backend == "venv"  # as recorded, not this machine's auto choice
    assert request.resume == cell


def test_resume_of_a_run_with_several_cells_asks_which(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    asked = _resumed(monkeypatch)
    run = tmp_path / "run"
    _cell(run, "jax")
    torch = _cell(run, "torch")
    code, err = _main(capsys, "bench", "--resume", str(run))
    assert code == UsageError.exit_code and asked == []
    assert "holds 2 cells (jax-cpu-host, torch-cpu-host)" in err
    assert "--framework and --accelerator" in err
    _main(capsys, "bench", "--resume", str(run), "--framework", "torch")
    assert asked[0].resume == torch
    _main(capsys, "bench", "--resume", str(torch))
    assert asked[1].resume == torch


@pytest.mark.parametrize(
    ("setup", "extra", "fragment"),
    [
        ("missing", [], "does not exist; pass the run directory"),
        ("empty", [], "holds no cell (no plan.json in it or in a folder of it)"),
        ("cell", ["--framework", "torch"], "is the cell jax/cpu/host, not what --framework"),
        ("cell", ["--backend", "docker"], "ran on the host backend, not docker"),
        ("cell", ["--seed", "3", "--case", "x"], "--case, --seed cannot go with --resume"),
    ],
)
def test_resume_mistakes_are_one_sentence(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    setup: str,
    extra: list[str],
    fragment: str,
) -> None:
    asked = _resumed(monkeypatch)
    run = tmp_path / "run"
    if setup == "empty":
        run.mkdir()
    elif setup == "cell":
        _cell(run)
    code, err = _main(capsys, "bench", "--resume", str(run), *extra)
    assert code == UsageError.exit_code and asked == []
    assert fragment in err
    assert len(err.strip().splitlines()) == 1


def test_resume_of_a_cell_whose_plan_changed_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    asked = _resumed(monkeypatch)
    cell = _cell(tmp_path / "run")
    digest = hashlib.sha256((cell / "plan.json").read_bytes()).hexdigest()
    env = {"schema": 1, "kind": "env", "cell": "jax/cpu/host", "plan_sha256": digest}
    (cell / "env.json").write_text(json.dumps(env))
    _main(capsys, "bench", "--resume", str(cell))
    assert len(asked) == 1  # the plan it ran: resumed
    plan = json.loads((cell / "plan.json").read_text())
    plan["seed"] += 1
    (cell / "plan.json").write_text(json.dumps(plan))
    code, err = _main(capsys, "bench", "--resume", str(tmp_path / "run"))
    assert code == UsageError.exit_code and len(asked) == 1
    assert "plan.json changed since the cell first ran" in err
    assert len(err.strip().splitlines()) == 1


def test_a_new_run_needs_framework_and_accelerator(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _main(capsys, "bench", "--framework", "jax")
    assert code == UsageError.exit_code
    assert "--accelerator is needed for a new run" in err
    assert "pass --resume RUN_DIR alone" in err


# -- item: a results folder that cannot be written -----------------------------------------


def _read_only(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """``folder`` behaves as a read-only mount (root, who runs these tests in CI, ignores
    permission bits, so the error is injected where the probe writes)."""
    from portbench import writable

    real = tempfile.mkstemp

    def mkstemp(*args: Any, dir: Any = None, **kwargs: Any) -> Any:
        if dir is not None and Path(dir).resolve() == folder.resolve():
            raise OSError(errno.EROFS, "Read-only file system", str(dir))
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(writable.tempfile, "mkstemp", mkstemp)


def test_bench_into_a_folder_that_cannot_be_made(
    built: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    blocker = tmp_path / "results"
    blocker.write_text("a file where the results folder should be")
    code, err = _main(capsys, *NEW_JAX, "--backend", "venv", "--run-dir", str(blocker / "run"))
    assert code == ResultsError.exit_code
    assert "is not a directory; pass --run-dir with a directory you can write" in err
    assert built == []


def test_bench_into_a_read_only_folder(
    built: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    _read_only(monkeypatch, tmp_path)
    code, err = _main(capsys, *NEW_JAX, "--backend", "venv", "--run-dir", str(tmp_path / "r"))
    assert code == ResultsError.exit_code
    assert "(Read-only file system); pass --run-dir with a directory you can write" in err
    assert built == [] and not (tmp_path / "r").exists()


def test_resume_of_a_read_only_cell(
    built: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    cell = _cell(tmp_path / "run")
    _read_only(monkeypatch, cell)
    code, err = _main(capsys, "bench", "--resume", str(cell))
    assert code == ResultsError.exit_code
    assert "make it writable, or copy the run to a writable place" in err
    assert built == []


def test_matrix_into_a_read_only_folder(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ran: list[Any] = []
    monkeypatch.setattr(matrix, "run_cell", lambda request, console: ran.append(request))
    _read_only(monkeypatch, tmp_path)
    code, err = _main(capsys, "matrix", "--run-dir", str(tmp_path / "run"))
    assert code == ResultsError.exit_code
    assert "pass --run-dir with a directory you can write" in err
    assert ran == []


def test_report_into_a_read_only_folder(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _read_only(monkeypatch, tmp_path)
    args = ("report", str(tmp_path), "--no-study", "--out", str(tmp_path / "report"))
    code, err = _main(capsys, *args)
    assert code == ResultsError.exit_code
    assert "pass --out with a directory you can write" in err
