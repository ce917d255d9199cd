"""The supervisor: runs a cell's cases in restartable workers and streams their records out.

It writes no result file. Each record, the environment facts and the session's end go out
as lines on its stdout (``protocol.py``), and the host, the only writer of a cell's
records, checks and stores them; the supervisor's stderr carries its diagnostics. The
supervisor is non-dumpable, so a case (the same user, in a worker) cannot open its stdout
through ``/proc``.

A worker is asked for one case at a time. Its messages are checked against that case: a
message about another case, a second result, or garbage means the case's code wrote to the
protocol pipe; that case is recorded as ``error`` and its worker replaced. A case past its
deadline is killed (SIGTERM to the worker's group, a grace period, SIGKILL) and recorded as
``timeout``; a worker that dies mid-case gets that case recorded as ``crash`` (``memory``
when the OOM killer did it), at the stage it had reached. Processes a case leaves behind
(``setsid`` ones included) are killed when it ends. Workers that die without finishing a
case are counted; past ``max_restarts`` in a row the cell stops with one sentence.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import shlex
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional, Set

from . import fallback, prediction, procs
from .bounds import (
    MESSAGE_CHARS,
    OUTPUT_LOG_BYTES_PER_CASE,
    OUTPUT_LOG_BYTES_PER_WORKER,
    OUTPUT_TAIL_BYTES,
    REASON_CHARS,
    TRACEBACK_CHARS,
    clip,
)
from .classify import CATEGORIES
from .plan import Plan
from .protocol import HOST_TYPES, MessageReader, ProtocolError, encode

__all__ = [
    "EXIT_ABORTED",
    "EXIT_COMPLETE",
    "EXIT_HOST_GONE",
    "EXIT_INTERRUPTED",
    "RECORD_SCHEMA",
    "Supervisor",
]

#: Record schema history (the host's results/model.py reads them all):
#:   1 - first version; 2 - warm samples, interval width, evidence, ``harness``;
#:   3 - census records: ``source`` (database, version, entry the inputs came from) and
#:       ``census`` (samples run, agreed, unchecked; the dtype declared or not).
RECORD_SCHEMA = 3
SESSION_SCHEMA = 2
EXIT_COMPLETE = 0
EXIT_ABORTED = 3
EXIT_HOST_GONE = 4
EXIT_INTERRUPTED = 130
POLL_S = 0.25
#: Under a cell wall-time budget, the share of the time left that warm timing may use (the
#: rest is for cold calls, compilation, checks and the differential twin).
WARM_SHARE = 0.5
RUNNERS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGES = ("setup", "call", "check")
#: Worker environment additions. Inductor compiles in the worker's own process, so no
#: compile pool is mistaken for a case's stray processes (and killed) when a case ends.
WORKER_ENV = {"PYTHONUNBUFFERED": "1", "TORCHINDUCTOR_COMPILE_THREADS": "1"}


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


class HostGone(Exception):
    """The host stopped reading the supervisor's stdout: nothing more can be recorded."""


class Emitter:
    """Writes messages to the host on a file descriptor (stdout), whole lines only."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, message: Dict[str, Any]) -> None:
        data = encode(message, HOST_TYPES)
        try:
            while data:
                data = data[os.write(self.fd, data) :]
        except (BrokenPipeError, OSError) as exc:
            raise HostGone(str(exc)) from None


class _Output:
    """A worker's stdout and stderr: logged up to a cap per case, the rest counted."""

    def __init__(self, fd: int, log_path: str) -> None:
        self.fd = fd
        self.log_path = log_path
        self._log = open(log_path, "ab")
        self.tail = b""
        self.case_bytes = 0
        self.case_logged = 0
        self.worker_logged = 0
        self.closed = False

    def new_case(self) -> None:
        self.case_bytes = self.case_logged = 0

    def drain(self) -> None:
        while not self.closed:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            if not chunk:
                self.closed = True
                return
            self.case_bytes += len(chunk)
            room = min(
                OUTPUT_LOG_BYTES_PER_CASE - self.case_logged,
                OUTPUT_LOG_BYTES_PER_WORKER - self.worker_logged,
            )
            if room > 0:
                kept = chunk[:room]
                self._log.write(kept)
                self._log.flush()
                self.case_logged += len(kept)
                self.worker_logged += len(kept)
            self.tail = (self.tail + chunk)[-OUTPUT_TAIL_BYTES:]

    def summary(self) -> Dict[str, int]:
        return {"bytes": self.case_bytes, "dropped_bytes": self.case_bytes - self.case_logged}

    def close(self) -> None:
        self.drain()
        os.close(self.fd)
        self._log.close()


class _WorkerProcess:
    """One worker: its process, its command pipe (stdin), its message pipe, its output."""

    def __init__(self, python: str, plan_path: str, log_path: str, collect: bool) -> None:
        msg_read, msg_write = os.pipe()
        out_read, out_write = os.pipe()
        os.set_blocking(msg_read, False)
        os.set_blocking(out_read, False)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (RUNNERS_DIR, env.get("PYTHONPATH", "")) if p
        )
        env.update(WORKER_ENV)
        cmd = [
            python,
            "-m",
            "portbench_runner",
            "work",
            "--plan",
            plan_path,
            "--pipe",
            str(msg_write),
            "--parent",
            str(os.getpid()),
        ] + (["--collect-env"] if collect else [])
        self.oom_before = _oom_kill_count()
        # Its own session: Ctrl-C in the terminal reaches the supervisor only, and the
        # whole group (compile helpers included) can be killed at once.
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=out_write,
            stderr=subprocess.STDOUT,
            pass_fds=(msg_write,),
            start_new_session=True,
            env=env,
        )
        os.close(msg_write)
        os.close(out_write)
        self.reader = MessageReader(msg_read)
        self.output = _Output(out_read, log_path)
        self.baseline: Set[int] = set()

    def ask(self, message: Dict[str, Any]) -> bool:
        """Send a command; False if the worker is no longer reading."""
        stdin = self.proc.stdin
        if stdin is None:
            return False
        try:
            stdin.write(encode(message))
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return False
        return True

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
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        try:  # children the worker left behind (compile servers) go with it
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        os.close(self.reader.fd)
        self.output.close()
        return code


class Supervisor:
    def __init__(
        self,
        plan: Plan,
        plan_path: str,
        scratch: str,
        todo: Optional[List[str]] = None,
        collect_env: bool = True,
        python: Optional[str] = None,
        out_fd: int = 1,
    ):
        self.plan = plan
        self.plan_path = os.path.abspath(plan_path)
        self.scratch = scratch
        os.makedirs(scratch, exist_ok=True)
        self.python = python or sys.executable
        self.host = Emitter(out_fd)
        self.interrupted: Optional[int] = None
        self.entries: Dict[str, Dict[str, Any]] = {}
        for function in plan["functions"]:
            for case in function["cases"]:
                self.entries[case["id"]] = {"function": function, "case": case}
        self.todo = [cid for cid in (self.entries if todo is None else todo) if cid in self.entries]
        self.need_env = collect_env
        self.written = 0
        self.restarts = 0
        self.workers_started = 0
        self.violations = 0
        self.strays_killed = 0
        self.done = len(self.entries) - len(self.todo)
        self.total = len(self.entries)
        self.cases_per_worker = int(plan.get("cases_per_worker") or 0)
        budget = plan.get("cell_budget_s")
        self.cell_budget_s: Optional[float] = (
            float(budget) if isinstance(budget, (int, float)) and budget > 0 else None
        )
        self.started_mono = time.monotonic()

    def warm_cap(self, cases_left: int) -> Optional[float]:
        """The warm-phase cap of the next case under the cell's wall-time budget: a share
        (``WARM_SHARE``) of the time left, spread over the cases left; None without a budget."""
        if self.cell_budget_s is None:
            return None
        left = self.cell_budget_s - (time.monotonic() - self.started_mono)
        return max(0.0, WARM_SHARE * left / max(1, cases_left))

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
            "evidence": None,
            "output": None,
            "strays_killed": 0,
            "worker": {"pid": pid, "index": max(0, self.workers_started - 1)},
            "started_at": _now_iso(started),
            "duration_s": max(0.0, float(fields.pop("duration_s", time.time() - started))),
            "rerun": f"{plan['rerun_prefix']} --case {shlex.quote(case_id)}",
        }
        if function.get("census") is not None:
            record["source"] = _census_source(function["census"])
            record["census"] = None
        record.update(fields)
        return record

    def _emit(self, record: Dict[str, Any]) -> None:
        self.host.send({"type": "record", "record": record})
        self.written += 1
        self.done += 1
        detail = record.get("category") or record.get("reason") or ""
        print(
            f"[{self.done}/{self.total}] {record['case']} {record['outcome']} {detail}".rstrip(),
            file=sys.stderr,
            flush=True,
        )

    # -- the loop ----------------------------------------------------------------
    def _install_signal_handlers(self) -> None:
        def handler(signum: int, _frame: Any) -> None:
            self.interrupted = signum

        signal.signal(signal.SIGINT, handler)
        signal.signal(signal.SIGTERM, handler)
        # A host that stops reading must not kill us mid-line with SIGPIPE.
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)

    def run(self) -> int:
        self._install_signal_handlers()
        procs.make_undumpable()
        procs.make_subreaper()
        started = time.time()
        skipped = self.done
        try:
            status, reason = self._run()
        except HostGone as exc:
            print(f"the host stopped reading the records ({exc}); stopping", file=sys.stderr)
            return EXIT_HOST_GONE
        session = {
            "schema": SESSION_SCHEMA,
            "kind": "session",
            "cell": self.plan["cell"],
            "started_at": _now_iso(started),
            "ended_at": _now_iso(),
            "status": status,
            "reason": reason,
            "records_written": self.written,
            "restarts": self.restarts,
            "skipped_already_recorded": skipped,
            "protocol_violations": self.violations,
            "strays_killed": self.strays_killed,
        }
        try:
            self.host.send({"type": "session", "session": session})
        except HostGone:
            return EXIT_HOST_GONE
        if reason:
            print(f"cell {self.plan['cell']} {status}: {reason}", file=sys.stderr, flush=True)
        return {"complete": EXIT_COMPLETE, "interrupted": EXIT_INTERRUPTED}.get(
            status, EXIT_ABORTED
        )

    def _run(self) -> tuple[str, Optional[str]]:
        untested = [
            cid for cid in self.todo if self.entries[cid]["function"].get("untested_reason")
        ]
        for case_id in untested:
            reason = self.entries[case_id]["function"]["untested_reason"]
            self._emit(self._record(case_id, {"outcome": "skip", "reason": reason}, None))
        skip = set(untested)
        remaining = [cid for cid in self.todo if cid not in skip]
        return _Drive(self, remaining).run()

    def case_timeout(self, case_id: str) -> float:
        case = self.entries[case_id]["case"]
        return float(case.get("timeout_s") or self.plan["timeouts"].get("case_s", 900))

    def write_env(self, worker_env: Any) -> None:
        plan = self.plan
        with open(self.plan_path, "rb") as handle:
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
            # What built the cell's environment (pip, uv; None where nothing was installed).
            "installer": plan.get("installer"),
            "portbench_version": plan.get("portbench_version", "unknown"),
            "started_at": _now_iso(),
            "plan_sha256": plan_sha,
        }
        if isinstance(worker_env, dict):
            env.update(worker_env)
        self.host.send({"type": "env", "env": env})
        self.need_env = False


def _death_fields(worker: _WorkerProcess, code: int, stage: str) -> Dict[str, Any]:
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
        "stage": stage,
        "category": "memory" if oom else "crash",
        "reason": f"the worker died during the case ({how})"
        + ("; the cgroup's OOM killer fired" if oom else ""),
        "exit": {"code": None if code < 0 else code, "signal": signal_name, "oom_killed": oom},
        "stderr_tail": worker.output.tail.decode("utf-8", "replace"),
    }


def _violation_fields(what: str) -> Dict[str, Any]:
    return {
        "outcome": "error",
        "reason": clip(
            f"the case's code wrote to the worker's protocol pipe ({what}); its worker was "
            "replaced and no other case's record was touched",
            REASON_CHARS,
        ),
        "error": {
            "type": "ProtocolViolation",
            "message": clip(what, MESSAGE_CHARS),
            "traceback": "",
        },
    }


def _census_source(census: Dict[str, Any]) -> Dict[str, Any]:
    """Where a census case's inputs came from: the database, its version and entry."""
    keys = ("database", "version", "entry", "op", "variant")
    return {key: census.get(key) for key in keys}


def _describe(item: Any) -> str:
    if isinstance(item, ProtocolError):
        return f"garbage: {item}"
    return f"a {item.get('type')!r} message for {str(item.get('case'))[:80]!r}"


def _sanitize(fields: Any) -> Dict[str, Any]:
    """A worker's outcome fields, checked; anything malformed becomes an ``error``."""
    problem = None
    if not isinstance(fields, dict):
        problem = "the result is not an object"
    elif fields.get("outcome") not in ("pass", "fail", "skip", "error"):
        problem = f"unknown outcome {str(fields.get('outcome'))[:40]!r}"
    elif fields["outcome"] == "fail" and (
        fields.get("stage") not in STAGES or fields.get("category") not in CATEGORIES
    ):
        problem = "a failure without a known stage and category"
    if problem is not None:
        return {
            "outcome": "error",
            "error": {"type": "MalformedResult", "message": problem, "traceback": ""},
        }
    clean: Dict[str, Any] = {"outcome": fields["outcome"]}
    if fields["outcome"] == "fail":
        clean["stage"], clean["category"] = fields["stage"], fields["category"]
    rule = fields.get("rule")
    clean["rule"] = clip(rule, 200) if isinstance(rule, str) else None
    reason = fields.get("reason")
    if isinstance(reason, str):
        clean["reason"] = clip(reason, REASON_CHARS)
    elif fields["outcome"] == "skip":
        clean["reason"] = "skipped"
    error = fields.get("error")
    if isinstance(error, dict):
        clean["error"] = {
            "type": clip(str(error.get("type", "")), 200),
            "message": clip(str(error.get("message", "")), MESSAGE_CHARS),
            "traceback": clip(str(error.get("traceback", "")), TRACEBACK_CHARS),
        }
    for key in ("timing", "cpu_reference", "census"):
        value = fields.get(key)
        if isinstance(value, dict) and len(json.dumps(value, default=str)) <= 64 * 1024:
            clean[key] = value
    evidence = fallback.clean_evidence(fields.get("evidence"))
    if evidence is not None:
        clean["evidence"] = evidence
    # A predicted cell's records (prediction.py): how each knows what it says.
    predicted = prediction.clean_prediction(fields.get("prediction"))
    if predicted is not None:
        clean["evidence_kind"] = prediction.evidence_kind_of(predicted["method"])
        clean["prediction"] = predicted
    for key in ("started_at", "duration_s"):
        if isinstance(fields.get(key), (int, float)):
            clean[key] = float(fields[key])
    return clean


class _Drive:
    """One session's loop over workers; each case is asked for, checked, and recorded once."""

    def __init__(self, sup: Supervisor, remaining: List[str]) -> None:
        self.sup = sup
        self.remaining = list(remaining)
        timeouts = sup.plan["timeouts"]
        self.start_s = float(timeouts.get("worker_start_s", 600))
        self.grace_s = float(timeouts.get("grace_s", 5))

    def run(self) -> tuple[str, Optional[str]]:
        sup = self.sup
        failures_in_a_row = 0
        while self.remaining:
            if sup.interrupted:
                return "interrupted", f"stopped by signal {sup.interrupted}; resume to finish"
            finished_any, fatal = self._one_worker()
            if fatal is not None:
                return "aborted", fatal
            if sup.interrupted:
                return "interrupted", f"stopped by signal {sup.interrupted}; resume to finish"
            if self.remaining:
                failures_in_a_row = 0 if finished_any else failures_in_a_row + 1
                sup.restarts += 1
                if failures_in_a_row > int(sup.plan["max_restarts"]):
                    log = os.path.join(sup.scratch, f"worker-{sup.workers_started - 1}.log")
                    return "aborted", (
                        f"{failures_in_a_row} workers in a row died before finishing a case "
                        f"(last log: {log}); fix the environment and resume"
                    )
        return "complete", None

    def _one_worker(self) -> tuple[bool, Optional[str]]:
        """Run cases in one worker until it ends; (finished any case, fatal message)."""
        sup = self.sup
        worker = _WorkerProcess(
            sup.python,
            sup.plan_path,
            os.path.join(sup.scratch, f"worker-{sup.workers_started}.log"),
            collect=sup.need_env,
        )
        sup.workers_started += 1
        me = os.getpid()
        phase = "starting"  # -> asked (run sent) -> running (start seen) -> asked ...
        asked: Optional[str] = None
        stage = "setup"
        held: Optional[Dict[str, Any]] = None  # the last result, written once the worker moves on
        started_at = 0.0
        cases_here = 0
        prefetched: Optional[str] = None
        finished_any = False
        exited = False
        deadline = time.monotonic() + self.start_s

        def run_command(case_id: str, cases_left: int) -> Dict[str, Any]:
            command: Dict[str, Any] = {"type": "run", "case": case_id}
            cap = sup.warm_cap(cases_left)
            if cap is not None:
                command["warm_cap_s"] = round(cap, 4)
            return command

        def flush_held() -> None:
            nonlocal held
            if held is not None:
                sup._emit(held)
                held = None

        def ask_next() -> None:
            nonlocal phase, asked, deadline, prefetched
            limit = sup.cases_per_worker
            deadline = time.monotonic() + self.start_s
            if prefetched is not None:
                # Asked already while the last case ran: the worker reads it only now.
                asked, prefetched, phase = prefetched, None, "asked"
            elif self.remaining and not (limit and cases_here >= limit):
                asked = self.remaining[0]
                phase = "asked"
                if not worker.ask(run_command(asked, len(self.remaining))):
                    phase = "dead"
            else:
                asked = None
                phase = "stopping"
                worker.ask({"type": "stop"})

        def prefetch() -> None:
            # The next command waits in the worker's stdin while this case runs, which saves
            # a round trip per case; the worker reads it only once this case has ended.
            nonlocal prefetched
            limit = sup.cases_per_worker
            if len(self.remaining) > 1 and not (limit and cases_here + 1 >= limit):
                prefetched = self.remaining[1]
                if not worker.ask(run_command(prefetched, len(self.remaining) - 1)):
                    prefetched = None

        def retire(why: str) -> None:
            # Everything the worker started goes with it, detached processes included.
            print(f"worker {sup.workers_started - 1} replaced: {why}", file=sys.stderr, flush=True)
            worker.kill(self.grace_s)
            procs.kill_tree(me, keep=set())

        while True:
            if sup.interrupted:
                worker.kill(self.grace_s)
                flush_held()
                return finished_any, None
            wait_s = max(0.0, min(POLL_S, deadline - time.monotonic()))
            fds = [worker.reader.fd] + ([] if worker.output.closed else [worker.output.fd])
            try:
                ready, _, _ = select.select(fds, [], [], wait_s)
            except InterruptedError:
                continue
            if worker.output.fd in ready:
                worker.output.drain()
            items = worker.reader.read_available() if worker.reader.fd in ready else []
            violation: Optional[str] = None
            for item in items:
                kind = None if isinstance(item, ProtocolError) else item.get("type")
                case = None if kind is None else item.get("case")
                if phase == "starting" and kind == "hello":
                    if sup.need_env and item.get("env") is not None:
                        sup.write_env(item.get("env"))
                    worker.baseline = procs.descendants(me)
                    ask_next()
                elif phase == "starting" and kind == "fatal":
                    worker.kill(self.grace_s)
                    return finished_any, clip(str(item.get("message")), MESSAGE_CHARS)
                elif phase == "asked" and kind == "start" and case == asked:
                    flush_held()
                    phase, stage, started_at = "running", "setup", time.time()
                    assert asked is not None
                    deadline = time.monotonic() + sup.case_timeout(asked)
                    sup.host.send({"type": "start", "case": asked})
                    prefetch()
                elif phase == "running" and kind == "stage" and case == asked:
                    if item.get("stage") in STAGES:
                        stage = item["stage"]
                elif phase == "running" and kind == "result" and case == asked:
                    assert asked is not None
                    fields = _sanitize(item.get("outcome"))
                    # What the case printed before its result may still sit in the pipe.
                    worker.output.drain()
                    fields["output"] = worker.output.summary()
                    # Output from here on is the next case's (it runs after this result).
                    worker.output.new_case()
                    # What appeared below us during the case, but the worker, is a stray.
                    killed = procs.kill_tree(me, {worker.proc.pid}, worker.baseline)
                    fields["strays_killed"] = killed
                    sup.strays_killed += killed
                    held = sup._record(asked, fields, worker.proc.pid)
                    self.remaining.remove(asked)
                    finished_any = True
                    cases_here += 1
                    ask_next()
                elif phase == "stopping" and kind == "bye":
                    flush_held()
                else:
                    violation = _describe(item)
                    break
            if violation is not None:
                sup.violations += 1
                if phase == "running" and asked is not None:
                    # The case in flight wrote it: its record says so; nothing else changes.
                    fields = _violation_fields(violation)
                    fields.update(started_at=started_at, duration_s=time.time() - started_at)
                    fields["output"] = worker.output.summary()
                    self.remaining.remove(asked)
                    retire(violation)
                    sup._emit(sup._record(asked, fields, worker.proc.pid))
                    return True, None
                duplicate = (
                    isinstance(item, dict)
                    and item.get("type") == "result"
                    and held is not None
                    and item.get("case") == held["case"]
                )
                if duplicate and held is not None:
                    # A second result for the case just finished: it forged one of the two.
                    held.update(_violation_fields(f"two results for {held['case']}"))
                    held.update(stage=None, category=None, rule=None, timing=None)
                # Between cases: the asked case has not started and goes to a fresh worker.
                retire(violation)
                flush_held()
                return finished_any, None
            if worker.reader.closed:
                break
            if worker.proc.poll() is not None:
                # Exited: one more round reads what it sent last (a grandchild may hold the
                # pipe open, so the end of the pipe is not waited for).
                if exited and not items:
                    break
                exited = True
                continue
            if time.monotonic() >= deadline:
                if phase == "running" and asked is not None:
                    pid = worker.proc.pid
                    worker.kill(self.grace_s)
                    limit = sup.case_timeout(asked)
                    self.remaining.remove(asked)
                    sup._emit(
                        sup._record(
                            asked,
                            {
                                "outcome": "fail",
                                "stage": stage,
                                "category": "timeout",
                                "reason": f"no result within {limit:g} s; the worker was killed",
                                "stderr_tail": worker.output.tail.decode("utf-8", "replace"),
                                "output": worker.output.summary(),
                                "started_at": started_at,
                                "duration_s": time.time() - started_at,
                            },
                            pid,
                        )
                    )
                    procs.kill_tree(me, keep=set())
                    return True, None
                # Not started, or not answering between cases: a new worker takes over.
                retire(f"no answer within {self.start_s:g} s while {phase}")
                flush_held()
                return finished_any, None
        # The worker ended (or closed its pipe): drain what it said, then see why.
        pid = worker.proc.pid
        code = worker.reap()
        procs.kill_tree(me, keep=set())
        flush_held()
        if phase == "running" and asked is not None:
            fields = _death_fields(worker, code, stage)
            fields.update(started_at=started_at, duration_s=time.time() - started_at)
            fields["output"] = worker.output.summary()
            self.remaining.remove(asked)
            sup._emit(sup._record(asked, fields, pid))
            return True, None
        return finished_any, None
