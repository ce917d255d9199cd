"""The one place that builds the runner's command line and its environment, and streams a
supervisor process's records into the host's writer (venv and host backends)."""

from __future__ import annotations

import os
import select
import subprocess
import time

from .. import interrupts
from ..errors import CellFailed
from ..paths import runners_dir
from ..results import CellWriter
from ..results.safeio import open_nofollow
from .base import CellLaunch

__all__ = [
    "CELL_PATHS",
    "run_tool_process",
    "runner_argv",
    "runner_environment",
    "stream_supervisor",
    "supervise_args",
]

#: Where a container sees the runner, the manifests, the plan, the todo list and its scratch.
CELL_PATHS = {
    "runners": "/portbench/runners",
    "manifests": "/portbench/manifests",
    "plan": "/portbench/plan.json",
    "todo": "/portbench/todo.json",
    "scratch": "/portbench/scratch",
    "out": "/portbench/run",
}
DRAIN_AFTER_INTERRUPT_S = 60.0


def runner_argv(python: str, *args: str) -> list[str]:
    return [python, "-m", "portbench_runner", *args]


def supervise_args(plan: str, scratch: str, todo: str, collect_env: bool) -> list[str]:
    args = ["supervise", "--plan", plan, "--scratch", scratch, "--todo", todo]
    return [*args, "--collect-env"] if collect_env else args


def runner_environment(runners: str, pinned: bool) -> dict[str, str]:
    """The environment a runner process gets.

    A pinned cell (venv) must see only its lock: the host's PYTHONPATH, PYTHONHOME, user
    site and other ``PYTHON*`` settings are dropped, as asv drops them. The host profile
    keeps them: whatever this interpreter finds is the point of that profile.
    """
    env = dict(os.environ)
    host_path = env.get("PYTHONPATH", "")
    if pinned:
        for key in [
            k for k in env if k.startswith("PYTHON") or k in ("VIRTUAL_ENV", "CONDA_PREFIX")
        ]:
            del env[key]
        env["PYTHONNOUSERSITE"] = "1"
        host_path = ""
    env["PYTHONPATH"] = os.pathsep.join(p for p in (runners, host_path) if p)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def stream_supervisor(
    python: str, runners: str, pinned: bool, launch: CellLaunch, writer: CellWriter
) -> int:
    """Run the in-cell supervisor as a child process, its stdout fed to ``writer``.

    Its stderr (its own diagnostics, never a case's output) goes to logs/supervisor.log. On
    Ctrl-C the supervisor (which got the same SIGINT) ends its session; what it still sends
    is stored before the interrupt goes on.
    """
    argv = runner_argv(
        python,
        *supervise_args(
            str(launch.plan_path), str(launch.logs), str(launch.todo_path), launch.collect_env
        ),
        "--parent",
        str(os.getpid()),
    )
    log_fd = open_nofollow(launch.logs / "supervisor.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log_fd,
            env=runner_environment(runners, pinned),
        )
    except OSError as exc:
        raise CellFailed(
            f"cannot start {python} ({exc.strerror}); rebuild the cell's environment"
        ) from None
    finally:
        os.close(log_fd)
    assert proc.stdout is not None
    stdout = proc.stdout.fileno()
    interrupted = False
    deadline = time.monotonic() + launch.budget_s
    while True:
        try:
            ready, _, _ = select.select([stdout], [], [], 0.5)
            chunk = os.read(stdout, 1 << 16) if ready else None
            if chunk:
                writer.feed(chunk)
        except KeyboardInterrupt:
            # Keep reading: the supervisor (SIGINT reached it too) ends its session and says so.
            interrupted = True
            # The signal this process got (SIGINT for Ctrl-C): the supervisor names it.
            proc.send_signal(interrupts.received())
            deadline = time.monotonic() + DRAIN_AFTER_INTERRUPT_S
            continue
        except InterruptedError:
            continue
        if chunk == b"":
            break
        if time.monotonic() > deadline:
            # The watchdog: the supervisor's own deadlines should never let this happen.
            proc.kill()
            deadline = float("inf")
    try:
        code = proc.wait(timeout=DRAIN_AFTER_INTERRUPT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
    proc.stdout.close()
    return 130 if interrupted else code


def run_tool_process(python: str, args: list[str], pinned: bool, timeout_s: float = 3600.0) -> int:
    """``python -m portbench_runner ARGS`` to completion (the walker); its exit status."""
    try:
        done = subprocess.run(
            runner_argv(python, *args),
            env=runner_environment(str(runners_dir()), pinned),
            stdin=subprocess.DEVNULL,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CellFailed(f"{' '.join(args[:1])} did not finish in {timeout_s:.0f} s") from None
    return done.returncode
