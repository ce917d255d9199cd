"""The supervisor stays readable: no function of it over 60 lines (ruff holds their
complexity to 10 and their statements to 50, pyproject.toml)."""

from __future__ import annotations

import ast

from conftest import RUNNERS

SUPERVISOR = ("supervisor.py", "exchange.py", "workerproc.py")
MAX_LINES = 60


def test_no_supervisor_function_is_over_60_lines() -> None:
    long = []
    for name in SUPERVISOR:
        path = RUNNERS / "portbench_runner" / name
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_LINES:
                    long.append(f"{name}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []


def test_each_worker_message_has_one_handler_and_one_phase() -> None:
    from portbench_runner.contract import WORKER_MESSAGES
    from portbench_runner.exchange import _EXPECTED, WorkerExchange

    assert set(_EXPECTED) == set(WORKER_MESSAGES)
    for message in WORKER_MESSAGES:
        assert callable(getattr(WorkerExchange, f"on_{message.value}"))
