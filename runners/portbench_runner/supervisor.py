"""The supervisor: runs a cell's cases in restartable workers and is the only writer of results.

A case past its deadline is killed (SIGTERM to the worker's process group, a grace
period, then SIGKILL) and recorded as ``timeout``; a worker that dies mid-case gets that
case recorded as ``crash`` (or ``memory`` when the OOM killer did it). Either way a fresh
worker goes on with the next case. Workers that die without finishing any case are
counted; past ``max_restarts`` in a row the cell stops with one sentence.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional

from .plan import Plan
from .protocol import MessageReader
from .store import RECORD_SCHEMA, CellStore

__all__ = ["EXIT_ABORTED", "EXIT_COMPLETE", "EXIT_INTERRUPTED", "Supervisor"]

EXIT_COMPLETE = 0
EXIT_ABORTED = 3
EXIT_INTERRUPTED = 130
STDERR_TAIL_BYTES = 3000
POLL_S = 0.25
RUNNERS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _now_iso(ts: Optional[float] = None) -> str:
    moment = datetime.fromtimestamp(ts if ts is not None else time.time(), tz=timezone.utc)
    return moment.isoformat(timespec="milliseconds")


def _oom_kill_count() -> Optional[int]:
    """The cgroup's ``oom_kill`` counter (v2 memory.events, else v1 memory.oom_control)."""
    candidates = []
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as handle:
            for line in handle:
                parts = line.strip().split(":", 2)
                if len(parts) != 3:
                    continue
                if parts[0] == "0":
                    candidates.append(
                        os.path.join("/sys/fs/cgroup", parts[2].lstrip("/"), "memory.events")
                    )
                elif "memory" in parts[1].split(","):
                    base = os.path.join("/sys/fs/cgroup/memory", parts[2].lstrip("/"))
                    candidates.append(os.path.join(base, "memory.oom_control"))
                    # Inside a container the cgroup path is not visible: its root is ours.
                    candidates.append("/sys/fs/cgroup/memory/memory.oom_control")
    except OSError:
        return None
    for path in candidates:
        try:
            with open(path, encoding="utf-8") as handle:
                for row in handle:
                    key, _, value = row.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


def _tail(path: str, size: int = STDERR_TAIL_BYTES) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - size))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""


class _WorkerProcess:
    """One worker: its process, its pipe, its log."""

    def __init__(self, python: str, plan_path: str, todo_path: str, log_path: str, collect: bool):
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (RUNNERS_DIR, env.get("PYTHONPATH", "")) if p
        )
        env["PYTHONUNBUFFERED"] = "1"
        cmd = [
            python,
            "-m",
            "portbench_runner",
            "work",
            "--plan",
            plan_path,
            "--pipe",
            str(write_fd),
        ]
        cmd += ["--todo", todo_path] + (["--collect-env"] if collect else [])
        self.log_path = log_path
        self._log = open(log_path, "ab")
        self.oom_before = _oom_kill_count()
        # Its own session: Ctrl-C in the terminal reaches the supervisor only, and the
        # whole group (compile helpers included) can be killed at once.
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            pass_fds=(write_fd,),
            start_new_session=True,
            env=env,
        )
        os.close(write_fd)
        self.reader = MessageReader(read_fd)

    def kill(self, grace_s: float) -> None:
        """SIGTERM the group, wait ``grace_s``, then SIGKILL; always reap."""
        for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=wait_s)
                break
            except subprocess.TimeoutExpired:
                continue
        self.reap()

    def reap(self) -> int:
        code = self.proc.wait()
        try:  # children the worker left behind (compile servers) go with it
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        os.close(self.reader.fd)
        self._log.close()
        return code


class Supervisor:
    def __init__(self, plan: Plan, plan_path: str, run_dir: str, python: Optional[str] = None):
        self.plan = plan
        self.plan_path = os.path.abspath(plan_path)
        self.store = CellStore(run_dir)
        self.python = python or sys.executable
        self.interrupted: Optional[int] = None
        self.entries: Dict[str, Dict[str, Any]] = {}
        for function in plan["functions"]:
            for case in function["cases"]:
                self.entries[case["id"]] = {"function": function, "case": case}
        self.written = 0
        self.restarts = 0
        self.workers_started = 0
        self.skipped = 0
        self.done = 0

    # -- records ---------------------------------------------------------------
    def _record(self, case_id: str, fields: Dict[str, Any], pid: Optional[int]) -> Dict[str, Any]:
        entry = self.entries[case_id]
        function, case = entry["function"], entry["case"]
        plan = self.plan
        started = fields.pop("started_at", None) or time.time()
        record: Dict[str, Any] = {
            "schema": RECORD_SCHEMA,
            "kind": "case",
            "cell": plan["cell"],
            "framework": plan["framework"],
            "accelerator": plan["accelerator"]["id"],
            "profile": plan["profile"],
            "function": function["function"],
            "study_test_file": function.get("study_test_file"),
            "case": case_id,
            "case_name": case["name"],
            "case_file": function["case_file"],
            "case_file_sha256": function.get("case_file_sha256"),
            "seed": case["seed"],
            "outcome": None,
            "stage": None,
            "category": None,
            "rule": None,
            "reason": None,
            "error": None,
            "exit": None,
            "stderr_tail": None,
            "timing": None,
            "worker": {"pid": pid, "index": self.workers_started - 1},
            "started_at": _now_iso(started),
            "duration_s": max(0.0, float(fields.pop("duration_s", time.time() - started))),
            "rerun": f"{plan['rerun_prefix']} --case {shlex.quote(case_id)}",
        }
        record.update(fields)
        return record

    def _write(self, record: Dict[str, Any], total: int) -> None:
        self.store.append_record(record)
        self.written += 1
        detail = record.get("category") or record.get("reason") or ""
        print(
            f"[{self.done}/{total}] {record['case']} {record['outcome']} {detail}".rstrip(),
            flush=True,
        )

    # -- the loop ----------------------------------------------------------------
    def _install_signal_handlers(self) -> None:
        def handler(signum: int, _frame: Any) -> None:
            self.interrupted = signum

        signal.signal(signal.SIGINT, handler)
        signal.signal(signal.SIGTERM, handler)

    def run(self) -> int:
        self._install_signal_handlers()
        started = time.time()
        existing, bad_lines = self.store.existing()
        status, reason = self._run(existing, bad_lines)
        self.store.append_session(
            {
                "schema": 1,
                "kind": "session",
                "cell": self.plan["cell"],
                "index": self.store.session_count(),
                "started_at": _now_iso(started),
                "ended_at": _now_iso(),
                "status": status,
                "reason": reason,
                "records_written": self.written,
                "restarts": self.restarts,
                "skipped_already_recorded": self.skipped,
                "truncated_lines": len(bad_lines),
            }
        )
        if reason:
            print(f"cell {self.plan['cell']} {status}: {reason}", file=sys.stderr, flush=True)
        return {"complete": EXIT_COMPLETE, "interrupted": EXIT_INTERRUPTED}.get(
            status, EXIT_ABORTED
        )

    def _run(self, existing: List[Dict[str, Any]], bad_lines: List[int]):  # type: ignore[no-untyped-def]
        if bad_lines:
            print(
                f"results.jsonl: {len(bad_lines)} unreadable line(s) ({bad_lines[:5]}) kept as "
                "they are and ignored; their cases run again",
                file=sys.stderr,
                flush=True,
            )
        foreign = [r for r in existing if r.get("cell") != self.plan["cell"]]
        if foreign:
            return "aborted", (
                f"{self.store.results_path} holds records of cell {foreign[0].get('cell')!r}, "
                f"not {self.plan['cell']!r}; give this cell its own run directory"
            )
        recorded = {r["case"] for r in existing}
        todo = [cid for cid in self.entries if cid not in recorded]
        self.skipped = len(self.entries) - len(todo)
        self.done = self.skipped
        total = len(self.entries)
        untested = [cid for cid in todo if self.entries[cid]["function"].get("untested_reason")]
        for case_id in untested:
            reason = self.entries[case_id]["function"]["untested_reason"]
            self.done += 1
            self._write(self._record(case_id, {"outcome": "skip", "reason": reason}, None), total)
        todo = [cid for cid in todo if cid not in set(untested)]
        return self._drive(todo, total, need_env=not os.path.exists(self.store.env_path))

    def _case_timeout(self, case_id: str) -> float:
        case = self.entries[case_id]["case"]
        return float(case.get("timeout_s") or self.plan["timeouts"].get("case_s", 900))

    def _drive(self, todo: List[str], total: int, need_env: bool):  # type: ignore[no-untyped-def]
        timeouts = self.plan["timeouts"]
        start_s = float(timeouts.get("worker_start_s", 600))
        grace_s = float(timeouts.get("grace_s", 5))
        failures_in_a_row = 0
        remaining = list(todo)
        while remaining:
            if self.interrupted:
                return "interrupted", f"stopped by signal {self.interrupted}; resume to finish"
            todo_path = self.store.log_path(f"todo-{self.workers_started}.json")
            with open(todo_path, "w", encoding="utf-8") as handle:
                json.dump(remaining, handle)
            worker = _WorkerProcess(
                self.python,
                self.plan_path,
                todo_path,
                self.store.log_path(f"worker-{self.workers_started}.log"),
                collect=need_env,
            )
            self.workers_started += 1
            inflight: Optional[str] = None
            inflight_started = 0.0
            finished_any = False
            said_bye = False
            deadline = time.monotonic() + start_s
            while True:
                if self.interrupted:
                    worker.kill(grace_s)
                    return "interrupted", f"stopped by signal {self.interrupted}; resume to finish"
                wait_s = max(0.0, min(POLL_S, deadline - time.monotonic()))
                try:
                    ready, _, _ = select.select([worker.reader.fd], [], [], wait_s)
                except InterruptedError:
                    continue
                messages = worker.reader.read_available() if ready else []
                for message in messages:
                    kind = message["type"]
                    if kind == "hello":
                        if need_env and message.get("env"):
                            self._write_env(message["env"])
                            need_env = False
                        deadline = time.monotonic() + start_s
                    elif kind == "fatal":
                        worker.kill(grace_s)
                        return "aborted", message["message"]
                    elif kind == "start":
                        inflight = message["case"]
                        inflight_started = time.time()
                        deadline = time.monotonic() + self._case_timeout(inflight)
                    elif kind == "result":
                        self.done += 1
                        record = self._record(message["case"], message["outcome"], worker.proc.pid)
                        self._write(record, total)
                        remaining.remove(message["case"])
                        inflight = None
                        finished_any = True
                        deadline = time.monotonic() + start_s
                    elif kind == "bye":
                        said_bye = True
                if said_bye or worker.reader.closed or worker.proc.poll() is not None:
                    if not worker.reader.closed:
                        for message in worker.reader.read_available():
                            if message["type"] == "result":  # pragma: no cover - rare race
                                self.done += 1
                                self._write(
                                    self._record(
                                        message["case"], message["outcome"], worker.proc.pid
                                    ),
                                    total,
                                )
                                remaining.remove(message["case"])
                                inflight = None
                    break
                if time.monotonic() >= deadline:
                    pid = worker.proc.pid
                    worker.kill(grace_s)
                    if inflight is not None:
                        self.done += 1
                        limit = self._case_timeout(inflight)
                        self._write(
                            self._record(
                                inflight,
                                {
                                    "outcome": "fail",
                                    "stage": "call",
                                    "category": "timeout",
                                    "reason": f"no result within {limit:g} s; the worker was killed",
                                    "stderr_tail": _tail(worker.log_path),
                                    "started_at": inflight_started,
                                    "duration_s": time.time() - inflight_started,
                                },
                                pid,
                            ),
                            total,
                        )
                        remaining.remove(inflight)
                        finished_any = True
                    inflight = None
                    worker = None  # type: ignore[assignment]
                    break
            if worker is not None:
                pid = worker.proc.pid
                code = worker.reap()
                if inflight is not None:
                    self.done += 1
                    fields = self._death_fields(worker, code)
                    fields.update(
                        started_at=inflight_started, duration_s=time.time() - inflight_started
                    )
                    self._write(self._record(inflight, fields, pid), total)
                    remaining.remove(inflight)
                    finished_any = True
            if remaining:
                if finished_any:
                    failures_in_a_row = 0
                else:
                    failures_in_a_row += 1
                self.restarts += 1
                if failures_in_a_row > int(self.plan["max_restarts"]):
                    log = self.store.log_path(f"worker-{self.workers_started - 1}.log")
                    return "aborted", (
                        f"{failures_in_a_row} workers in a row died before finishing a case "
                        f"(last log: {log}); fix the environment and resume"
                    )
        return "complete", None

    def _death_fields(self, worker: _WorkerProcess, code: int) -> Dict[str, Any]:
        signal_name: Optional[str] = None
        if code < 0:
            try:
                signal_name = signal.Signals(-code).name
            except ValueError:
                signal_name = str(-code)
        oom_after = _oom_kill_count()
        oom = (
            code == -signal.SIGKILL
            and worker.oom_before is not None
            and oom_after is not None
            and oom_after > worker.oom_before
        )
        how = f"signal {signal_name}" if signal_name else f"exit code {code}"
        return {
            "outcome": "fail",
            "stage": "call",
            "category": "memory" if oom else "crash",
            "reason": f"the worker died during the case ({how})"
            + ("; the cgroup's OOM killer fired" if oom else ""),
            "exit": {"code": None if code < 0 else code, "signal": signal_name, "oom_killed": oom},
            "stderr_tail": _tail(worker.log_path),
        }

    def _write_env(self, worker_env: Dict[str, Any]) -> None:
        plan = self.plan
        with open(self.plan_path, "rb") as handle:
            import hashlib

            plan_sha = hashlib.sha256(handle.read()).hexdigest()
        env = {
            "schema": 1,
            "kind": "env",
            "cell": plan["cell"],
            "framework": plan["framework"],
            "accelerator": plan["accelerator"]["id"],
            "profile": plan["profile"],
            "backend": plan["backend"],
            "image": plan.get("image"),
            "portbench_version": plan.get("portbench_version", "unknown"),
            "started_at": _now_iso(),
            "plan_sha256": plan_sha,
        }
        env.update(worker_env)
        self.store.write_env_once(env)
