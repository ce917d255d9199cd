"""``portbench census``: bad input is one sentence and a non-zero exit, before any build."""

from __future__ import annotations

from pathlib import Path

import pytest

from portbench.cli import main


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--framework", "numpy", "--accelerator", "cpu"], "no census for 'numpy'"),
        (["--framework", "torch"], "--accelerator is needed"),
        (["--framework", "torch", "--accelerator", "cpu", "--samples", "-1"], "--samples"),
        (["--resume", "RUN", "--ops", "add"], "--ops cannot go with --resume"),
    ],
)
def test_bad_census_input_is_one_sentence(
    argv: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(tmp_path) if a == "RUN" else a for a in argv]
    assert main(["census", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("error:") == 1


def test_python_dash_m_portbench_is_the_portbench_command() -> None:
    import os
    import subprocess
    import sys

    src = str(Path(__file__).parents[3] / "src")
    env = {**os.environ, "PYTHONPATH": src}
    command = [sys.executable, "-m", "portbench", "census", "--framework", "numpy"]
    done = subprocess.run(
        [*command, "--accelerator", "cpu"],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2
    assert "no census for 'numpy'" in done.stderr and "Traceback" not in done.stderr
