"""What the CLI prints when a command fails or is stopped: the sentence, then the log it collected."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from portbench import cli
from portbench.errors import (
    CellFailed,
    CellInterrupted,
    EnvironmentBuildError,
    ManifestError,
)

PIP_LOG = "\n".join(f"pip line {n}" for n in range(1, 101))


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    # Colour codes would split the text the tests look for.
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


def _run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    action: Callable[[], int],
    *args: str,
) -> tuple[int, str]:
    """``portbench fake ARGS`` through cli.main, the fake command doing ``action``."""
    module = types.ModuleType("portbench_fake_commands")

    def register(subparsers: Any) -> None:
        parser = subparsers.add_parser("fake")
        parser.add_argument("rest", nargs="*")
        parser.set_defaults(func=lambda _args: action())

    module.register = register  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(cli, "COMMAND_MODULES", (*cli.COMMAND_MODULES, module.__name__))
    code = cli.main(["fake", *args])
    captured = capsys.readouterr()
    return code, captured.err


def _raise(exc: BaseException) -> Callable[[], int]:
    def action() -> int:
        raise exc

    return action


def test_an_environment_build_error_shows_the_last_lines_of_its_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = PIP_LOG + "\n\x1b[31mERROR: [red]no wheel[/red] for numpy==0.0\x1b[0m\n"
    error = EnvironmentBuildError(
        "installing jax-cpu.txt into a venv failed (exit 1); the last lines of pip's output follow",
        log=log,
    )
    code, err = _run(monkeypatch, capsys, _raise(error))
    assert code == EnvironmentBuildError.exit_code
    lines = err.splitlines()
    assert lines[0].startswith("error: installing jax-cpu.txt into a venv failed")
    # The sentence, then the log's last 40 non-blank lines, in order, escapes removed and
    # brackets printed as they are (not read as markup).
    assert lines[1:] == [f"pip line {n}" for n in range(62, 101)] + [
        "ERROR: [red]no wheel[/red] for numpy==0.0"
    ]
    assert "pip line 61" not in err
    assert "\x1b" not in err


def test_a_long_log_line_is_cut(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    error = EnvironmentBuildError("building failed; the last lines follow", log="x" * 10_000)
    _, err = _run(monkeypatch, capsys, _raise(error))
    (line,) = err.splitlines()[1:]
    assert line == "x" * 300 + "…"


def test_a_failed_cell_shows_its_stderr_tail(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    error = CellFailed(
        "enumerating jax failed: ImportError: no jaxlib",
        exit_status=1,
        stderr_tail="Traceback (most recent call last):\n  File x\nImportError: no jaxlib\n",
    )
    code, err = _run(monkeypatch, capsys, _raise(error))
    assert code == CellFailed.exit_code
    assert err.splitlines()[1:] == [
        "Traceback (most recent call last):",
        "  File x",
        "ImportError: no jaxlib",
    ]


def test_an_error_without_a_log_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _run(monkeypatch, capsys, _raise(ManifestError("m.toml: bad [x]; fix it")))
    assert code == ManifestError.exit_code
    assert err.splitlines() == ["error: m.toml: bad [x]; fix it"]


def test_an_interrupted_cell_names_its_real_run_directory(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run_dir = tmp_path / "results" / "run-1"
    error = CellInterrupted(
        f"interrupted: 3 of 9 cases are recorded in {run_dir / 'jax-cpu-host'}; resume with "
        f"portbench bench --framework jax --accelerator cpu --profile host --resume {run_dir}",
        run_dir=run_dir,
    )
    code, err = _run(monkeypatch, capsys, _raise(error))
    assert code == 130
    assert f"--resume {run_dir}" in err
    assert "RUN_DIR" not in err
    assert "error:" not in err


def test_an_interrupted_cell_whose_message_lacks_the_directory_gets_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run_dir = tmp_path / "a run"
    code, err = _run(monkeypatch, capsys, _raise(CellInterrupted("", run_dir=run_dir)))
    assert code == 130
    assert err.startswith(
        "stopped by SIGINT (Ctrl-C): what was recorded is kept; resume with portbench bench"
    )
    assert f"--resume '{run_dir}'" in err  # quoted: it holds a space
    assert "RUN_DIR" not in err


def test_ctrl_c_elsewhere_says_which_command_to_run_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _run(monkeypatch, capsys, _raise(KeyboardInterrupt()), "one", "two words")
    assert code == 130
    assert "run portbench fake one 'two words' again" in err
    assert "RUN_DIR" not in err


def test_matrix_stops_at_an_interrupted_cell_and_shows_a_failed_cells_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from portbench.commands import matrix

    calls: list[str] = []

    def interrupted(request: Any, console: Any) -> Any:
        calls.append(request.framework)
        raise CellInterrupted("interrupted: resume with --resume X", run_dir=tmp_path)

    monkeypatch.setattr(matrix, "run_cell", interrupted)
    args = ["matrix", "--frameworks", "jax", "torch", "--run-dir", str(tmp_path)]
    assert cli.main(args) == 130
    assert calls == ["jax"]  # the next cell did not start
    assert "stopped by SIGINT (Ctrl-C): resume with --resume X" in capsys.readouterr().err

    def failed(request: Any, console: Any) -> Any:
        raise EnvironmentBuildError("pip failed; the last lines follow", log="pip says no\n")

    monkeypatch.setattr(matrix, "run_cell", failed)
    assert cli.main(args) == 1
    out = capsys.readouterr().out
    assert "pip failed; the last lines follow" in out
    assert "pip says no" in out


def test_a_late_write_error_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import errno

    from portbench.errors import ResultsError

    denied = PermissionError(errno.EACCES, "Permission denied", "/results/x/matrix.json")
    code, err = _run(monkeypatch, capsys, _raise(denied))
    assert code == ResultsError.exit_code
    assert err.strip() == (
        "error: /results/x/matrix.json: Permission denied; fix its permissions or pick "
        "another directory"
    )


def test_an_os_error_that_is_no_write_error_stays_a_bug(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import errno

    with pytest.raises(ConnectionResetError):
        _run(monkeypatch, capsys, _raise(ConnectionResetError(errno.ECONNRESET, "reset")))


def test_bench_summary_counts_failures_that_the_cpu_shares() -> None:
    """The "fails on the CPU too" bucket is a column of bench's summary, for functions and
    for the failed cases whose CPU twin failed as well."""
    from rich.console import Console

    from portbench.cellrun import CellRunResult
    from portbench.commands.bench import summary_table

    functions = {"pass": 5, "partial": 1, "complete": 0, "untested": 2, "cpu_too": 3}
    cases = {"pass": 40, "fail": 7, "skip": 1, "error": 0, "cpu_too": 4}
    result = CellRunResult(Path("x"), 0, cases, functions, 12.0)
    console = Console(width=200, record=True)
    console.print(summary_table("torch/h100/current", result))
    text = console.export_text()
    assert "fails on the CPU too" in text
    rows = {line.split("│")[1].strip(): line for line in text.splitlines() if "│" in line}
    assert [c.strip() for c in rows["functions"].split("│")[2:7]] == ["5", "1", "0", "2", "3"]
    assert [c.strip() for c in rows["cases"].split("│")[2:7]] == ["40", "7", "1", "0", "4"]
