"""Shared test helpers: paths, schema validation, and building real plans for the runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
RUNNERS = ROOT / "runners"
SCHEMAS = ROOT / "src" / "portbench" / "schemas"

if str(RUNNERS) not in sys.path:
    sys.path.insert(0, str(RUNNERS))

# Property tests assert properties, never speed: a machine busy with other work (CI runners,
# parallel builds) must not fail them on Hypothesis's own timing checks.
settings.register_profile("portbench", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("portbench")


def load_schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text())


def validate(instance: dict[str, Any], name: str) -> None:
    jsonschema.validate(instance, load_schema(name), cls=jsonschema.Draft202012Validator)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def make_plan(
    root: Path,
    case_files: dict[str, str],
    framework: str = "python",
    timeouts: dict[str, float] | None = None,
    max_restarts: int = 3,
    case_timeouts: dict[str, float] | None = None,
    cases_per_worker: int = 0,
) -> Path:
    """Write case files and the plan the host compiles for them; return the plan path."""
    from portbench.plan import PlanOptions, plan_from_case_files

    timeouts = {"case_s": 60.0, "worker_start_s": 60.0, "grace_s": 1.0, **(timeouts or {})}
    options = PlanOptions(
        case_timeout_s=timeouts["case_s"],
        worker_start_s=timeouts["worker_start_s"],
        grace_s=timeouts["grace_s"],
        max_restarts=max_restarts,
        cases_per_worker=cases_per_worker,
        timing={"warm_budget_s": 0.005, "max_warm_s": 0.05},
    )
    plan = plan_from_case_files(root, case_files, framework, options, case_timeouts)
    plan_path = root / "plan.json"
    plan_path.write_text(json.dumps(plan.to_json()))
    return plan_path


def supervise_cmd(plan: Path, run_dir: Path, python: str | None = None) -> list[str]:
    """One session of ``plan`` in the cell directory ``run_dir``, the host storing the records
    the in-cell supervisor streams (the host backend: what ``bench`` runs)."""
    cmd = [
        sys.executable,
        "-m",
        "portbench.session",
        "--plan",
        str(plan),
        "--cell-dir",
        str(run_dir),
    ]
    if python:
        cmd += ["--python", python]
    return cmd


def runner_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(RUNNERS), str(ROOT / "src")])
    return env


def run_supervisor(
    plan: Path, run_dir: Path, python: str | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        supervise_cmd(plan, run_dir, python),
        capture_output=True,
        text=True,
        env=runner_env(),
        timeout=timeout,
        check=False,
    )


def wait_for_records(path: Path, count: int, proc: Any = None, timeout_s: float = 300) -> None:
    """Wait until ``path`` holds ``count`` lines (a cell in progress); fail if ``proc`` ends first."""
    import time

    deadline = time.monotonic() + timeout_s
    while not (path.exists() and len(path.read_text().splitlines()) >= count):
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the process ended before {count} records: {proc.communicate()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"fewer than {count} records in {path}")
        time.sleep(0.05)


def jax_cpu_bench(*extra: str) -> list[str]:
    """``python -m portbench.cli bench`` for a JAX cpu cell, with extra options."""
    return [
        sys.executable,
        "-m",
        "portbench.cli",
        "bench",
        "--framework",
        "jax",
        "--accelerator",
        "cpu",
        *extra,
    ]


def with_default_sigint(command: list[str]) -> list[str]:
    """``command``, started with SIGINT at its default disposition. A child started from a
    background shell job inherits SIGINT ignored, and Python then never raises
    KeyboardInterrupt, so a Ctrl-C test would see the run finish instead. The reset happens in
    a small Python that then execs the command (same pid; no preexec_fn, which is unsafe to
    fork from a pytest process that has JAX's threads)."""
    reset = (
        "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
        "os.execvp(sys.argv[1], sys.argv[1:])"
    )
    return [sys.executable, "-c", reset, *command]


def project_with_cases(tmp_path: Path, framework: str, cases: str) -> Path:
    """A portbench home sharing the real runner, images and locks, with one case file."""
    home = tmp_path / "home"
    (home / "manifests" / framework / "cases").mkdir(parents=True)
    (home / "runners").symlink_to(ROOT / "runners")
    (home / "images").symlink_to(ROOT / "images")
    (home / "paper").symlink_to(ROOT / "paper")
    (home / "manifests" / framework / "cases" / "probe.py").write_text(cases)
    (home / "manifests" / framework / "manifest.toml").write_text(
        f'schema = 1\nframework = "{framework}"\n[[function]]\nfunction = "probe.sandbox"\n'
        'study_test_file = "probe_test.py"\nstratum = "1"\ncase_file = "cases/probe.py"\n'
    )
    return home
