"""Bad input ends with one sentence and a non-zero exit, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from portbench.errors import AcceleratorMissing, ManifestError, UsageError


def _portbench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "portbench.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (
            ["bench", "--framework", "mxnet", "--accelerator", "cpu"],
            UsageError.exit_code,
            "unknown framework 'mxnet'",
        ),
        (
            ["bench", "--framework", "jax", "--accelerator", "gpu-x9"],
            UsageError.exit_code,
            "unknown accelerator 'gpu-x9'",
        ),
        (
            ["bench", "--framework", "jax", "--accelerator", "cpu", "--profile", "ancient"],
            UsageError.exit_code,
            "unknown profile 'ancient'",
        ),
        (
            ["bench", "--framework", "jax", "--accelerator", "tpu-v3", "--profile", "host"],
            AcceleratorMissing.exit_code,
            "accelerator 'tpu-v3' is not present",
        ),
        (
            [
                "bench",
                "--framework",
                "jax",
                "--accelerator",
                "cpu",
                "--profile",
                "current",
                "--backend",
                "host",
            ],
            UsageError.exit_code,
            "use --profile host",
        ),
        (["list", "--framework", "caffe"], UsageError.exit_code, "unknown framework 'caffe'"),
        (
            ["bench", "--framework", "torch", "--accelerator", "cpu", "--lower-for", "cuda"],
            UsageError.exit_code,
            "--lower-for applies to jax cells only, not torch",
        ),
        (
            ["bench", "--framework", "jax", "--accelerator", "cpu", "--soft-placement"],
            UsageError.exit_code,
            "--soft-placement applies to tensorflow cells only, not jax",
        ),
    ],
)
def test_bad_input_is_one_sentence(args: list[str], code: int, fragment: str) -> None:
    proc = _portbench(*args)
    assert proc.returncode == code, proc.stderr
    assert fragment in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_malformed_manifest_is_reported(tmp_path) -> None:
    import os

    (tmp_path / "manifests" / "jax").mkdir(parents=True)
    (tmp_path / "manifests" / "jax" / "manifest.toml").write_text("schema = [\n")
    (tmp_path / "runners" / "portbench_runner").mkdir(parents=True)
    (tmp_path / "images").mkdir()
    from portbench.paths import images_dir

    (tmp_path / "images" / "accelerators.toml").write_text(
        images_dir().joinpath("accelerators.toml").read_text()
    )
    proc = subprocess.run(
        [sys.executable, "-m", "portbench.cli", "list", "--framework", "jax"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PORTBENCH_HOME": str(tmp_path)},
    )
    assert proc.returncode == ManifestError.exit_code
    assert "manifest.toml: not valid TOML" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_malformed_plan_is_one_sentence(tmp_path) -> None:
    from conftest import RUNNERS

    plan = tmp_path / "plan.json"
    plan.write_text('{"schema": 1}')
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "portbench_runner",
            "supervise",
            "--plan",
            str(plan),
            "--scratch",
            str(tmp_path / "scratch"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PYTHONPATH": str(RUNNERS), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2
    assert "'cell' is missing" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "text",
    ['{"schema": 1}', "[1, 2]", "not json", '{"schema": 99, "cell": "x"}'],
    ids=["no-cell", "a-list", "not-json", "newer"],
)
def test_a_malformed_plan_given_to_a_session_is_one_sentence(tmp_path, text: str) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(text)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "portbench.session",
            "--plan",
            str(plan),
            "--cell-dir",
            str(tmp_path / "cell"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: ") and "plan" in proc.stderr
    assert not (tmp_path / "cell").exists()
