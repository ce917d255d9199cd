"""The runner runs under every Python a profile may bring (3.8 to 3.13)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import make_plan, read_jsonl, validate

VERSIONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]
SOURCE = """
import ctypes
from portbench_runner.api import case

@case("ok")
def ok(ctx):
    out = ctx.measure(sorted, [3, 1, 2])
    ctx.check(out == [1, 2, 3], f"sorted gave {out}")

@case("crash")
def crash(ctx):
    ctx.measure(ctypes.string_at, 0)
"""


def _python(version: str) -> str | None:
    found = sorted((Path.home() / ".pyenv" / "versions").glob(f"{version}.*/bin/python{version}"))
    return str(found[-1]) if found else shutil.which(f"python{version}")


@pytest.mark.parametrize("version", VERSIONS)
def test_supervisor_and_worker_run_under(version: str, tmp_path: Path) -> None:
    python = _python(version)
    if python is None:
        pytest.skip(f"no Python {version} on this machine")
    plan = make_plan(tmp_path, {"pythons": SOURCE})
    import subprocess

    from conftest import runner_env, supervise_cmd

    # The host (this interpreter) runs the supervisor and its workers with ``python``.
    cmd = supervise_cmd(plan, tmp_path / "run", python)
    proc = subprocess.run(
        cmd, env=runner_env(), capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    records = {r["case_name"]: r for r in read_jsonl(tmp_path / "run" / "results.jsonl")}
    assert records["ok"]["outcome"] == "pass"
    assert records["crash"]["category"] == "crash"
    for record in records.values():
        validate(record, "record")
