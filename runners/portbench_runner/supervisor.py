"""The supervisor: runs a cell's cases in restartable workers and streams their records out.

It writes no result file. Each record, the environment facts and the session's end go out
as lines on its stdout (``contract.messages``), and the host, the only writer of a cell's
records, checks and stores them; the supervisor's stderr carries its diagnostics. The
supervisor is non-dumpable, so a case (the same user, in a worker) cannot open its stdout
through ``/proc``.

Each worker's exchange is a small state machine (``exchange.py``). Processes a case leaves
behind (``setsid`` ones included) are killed when it ends. Workers that die without
finishing a case are counted; past ``max_restarts`` in a row the cell stops with one
sentence.
"""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import time
from dataclasses import replace
from typing import Dict, List, Optional, Tuple

from . import procs
from .contract import (
    CaseRecord,
    CaseResult,
    EnvDocument,
    EnvMessage,
    Hello,
    Message,
    OutputInfo,
    Plan,
    Provenance,
    RecordFactory,
    RecordMessage,
    SessionLine,
    SessionMessage,
    SessionStatus,
    WorkerInfo,
    dump_line,
    iso_time,
    shown,
    untested_result,
)
from .diagnostics import ignore_file_size_signal, say
from .exchange import WorkerExchange

__all__ = [
    "EXIT_ABORTED",
    "EXIT_COMPLETE",
    "EXIT_HOST_GONE",
    "EXIT_INTERRUPTED",
    "Supervisor",
]

EXIT_COMPLETE = 0
EXIT_ABORTED = 3
EXIT_HOST_GONE = 4
EXIT_INTERRUPTED = 130
#: Under a cell wall-time budget, the share of the time left that warm timing may use (the
#: rest is for cold calls, compilation, checks and the differential twin).
WARM_SHARE = 0.5
_EXITS = {SessionStatus.COMPLETE: EXIT_COMPLETE, SessionStatus.INTERRUPTED: EXIT_INTERRUPTED}


class HostGone(Exception):
    """The host stopped reading the supervisor's stdout: nothing more can be recorded."""


class HostLink:
    """Writes messages to the host on a file descriptor (stdout), whole lines only."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, *messages: Message) -> None:
        """Send ``messages`` in one write (a record and the next case's start go together)."""
        data = b"".join(dump_line(message.to_json()) for message in messages)
        try:
            while data:
                data = data[os.write(self.fd, data) :]
        except OSError as exc:
            raise HostGone(str(exc)) from None


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
        self.host = HostLink(out_fd)
        self.factory = RecordFactory(plan)
        # A predicted pass over several targets: one factory per other target's cell, and
        # each worker result's sibling results until its record is sent.
        self.sibling_factories = [RecordFactory(p) for p in plan.siblings()]
        self._sibling_results: Dict[str, Tuple[CaseRecord, Tuple[CaseResult, ...]]] = {}
        self.interrupted: Optional[int] = None
        self.todo = [cid for cid in (plan.case_ids if todo is None else todo) if cid in plan]
        self.need_env = collect_env
        self.written = 0
        self.restarts = 0
        self.workers_started = 0
        self.violations = 0
        self.strays_killed = 0
        self.total = plan.case_count
        self.done = self.total - len(self.todo)
        self.cases_per_worker = plan.cases_per_worker
        budget = plan.cell_budget_s
        self.cell_budget_s = float(budget) if budget else None
        self.started_mono = time.monotonic()

    def warm_cap(self, cases_left: int) -> Optional[float]:
        """The warm-phase cap of the next case under the cell's wall-time budget: a share
        (``WARM_SHARE``) of the time left, spread over the cases left; None without a budget."""
        if self.cell_budget_s is None:
            return None
        left = self.cell_budget_s - (time.monotonic() - self.started_mono)
        return max(0.0, WARM_SHARE * left / max(1, cases_left))

    # -- records ---------------------------------------------------------------------------
    def record(
        self,
        case_id: str,
        result: CaseResult,
        pid: Optional[int],
        index: int,
        output: Optional[OutputInfo] = None,
        strays: int = 0,
        started_at: Optional[float] = None,
        duration_s: Optional[float] = None,
    ) -> CaseRecord:
        made = self.factory.record(
            case_id,
            result,
            WorkerInfo(pid, index),
            started_at=started_at,
            duration_s=duration_s,
            output=output,
            strays_killed=strays,
        )
        if self.sibling_factories and result.siblings:
            self._sibling_results[case_id] = (made, result.siblings)
        return made

    def sibling_records(self, record: CaseRecord) -> List[CaseRecord]:
        """The records of ``record``'s case in the pass's other cells: from the worker's
        sibling results where ``record`` is the one made with them; otherwise (a crash, a
        timeout, a skip, a result the supervisor changed afterwards) ``record``'s outcome
        speaks for every target."""
        made, results = self._sibling_results.pop(record.case, (None, ()))
        by_target = {
            r.prediction.target: r for r in results if r.prediction is not None
        } if made == record else {}  # fmt: skip
        found = []
        for factory in self.sibling_factories:
            settings = factory.plan.prediction
            assert settings is not None
            sibling = by_target.get(settings.target)
            if sibling is None:
                found.append(factory.in_this_cell(record))
                continue
            mine = factory.record(
                record.case,
                sibling,
                record.worker,
                output=record.output,
                strays_killed=record.strays_killed,
            )
            found.append(replace(mine, started_at=record.started_at, duration_s=record.duration_s))
        return found

    def emit(self, record: CaseRecord, *then: Message) -> None:
        """Send ``record`` to the host (and ``then``, in the same write); say so on stderr."""
        siblings = [RecordMessage(r) for r in self.sibling_records(record)]
        self.host.send(RecordMessage(record), *siblings, *then)
        self.written += 1
        self.done += 1
        detail = record.category or record.reason or ""
        line = f"[{self.done}/{self.total}] {shown(record.case)} {record.outcome} {shown(detail)}"
        say(line.rstrip())

    def worker_ready(self, hello: Hello) -> None:
        """A worker said hello: the cell's env.json (once), the records' provenance."""
        planned = self.plan.provenance or Provenance()
        found = planned.merged(Provenance(python=hello.python, numpy=hello.numpy))
        if found != Provenance() and found != self.factory.provenance:
            self.factory = RecordFactory(self.plan, found)
            self.sibling_factories = [RecordFactory(f.plan, found) for f in self.sibling_factories]
        if self.need_env and hello.env is not None:
            self.write_env(hello)

    def write_env(self, hello: Hello) -> None:
        plan = self.plan
        with open(self.plan_path, "rb") as handle:
            plan_sha = hashlib.sha256(handle.read()).hexdigest()
        env = EnvDocument(
            cell=plan.cell,
            framework=plan.framework,
            accelerator=plan.accelerator.id,
            profile=plan.profile,
            backend=plan.backend,
            image=plan.image,
            installer=plan.installer,
            portbench_version=plan.portbench_version or "unknown",
            started_at=iso_time(),
            plan_sha256=plan_sha,
            provenance=plan.provenance,
            facts=dict(hello.env or {}),
        )
        self.host.send(EnvMessage(env))
        self.need_env = False

    # -- the session -------------------------------------------------------------------------
    def _install_signal_handlers(self) -> None:
        def handler(signum: int, _frame: object) -> None:
            self.interrupted = signum

        signal.signal(signal.SIGINT, handler)
        signal.signal(signal.SIGTERM, handler)
        # A host that stops reading must not kill us mid-line with SIGPIPE.
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        # A log past a file size limit must fail its write, not kill us (diagnostics.say).
        ignore_file_size_signal()

    def run(self) -> int:
        self._install_signal_handlers()
        procs.make_undumpable()
        procs.make_subreaper()
        started = time.time()
        skipped = self.done
        try:
            status, reason = self._run()
            session = SessionLine(
                cell=self.plan.cell,
                status=status,
                reason=reason,
                started_at=iso_time(started),
                ended_at=iso_time(),
                records_written=self.written,
                restarts=self.restarts,
                skipped_already_recorded=skipped,
                protocol_violations=self.violations,
                strays_killed=self.strays_killed,
            )
            self.host.send(SessionMessage(session))
        except HostGone as exc:
            say(f"the host stopped reading the records ({shown(str(exc), 300)}); stopping")
            return EXIT_HOST_GONE
        if reason:
            say(f"cell {shown(self.plan.cell)} {status}: {shown(reason, 1000)}")
        return _EXITS.get(status, EXIT_ABORTED)

    def _run(self) -> Tuple[SessionStatus, Optional[str]]:
        untested = []
        for case_id in self.todo:
            function, _ = self.plan.entry(case_id)
            if function.untested_reason:
                untested.append(case_id)
                self.emit(self.record(case_id, untested_result(function.untested_reason), None, 0))
        remaining = [cid for cid in self.todo if cid not in set(untested)]
        return self._drive(remaining)

    def _stopped(self) -> Tuple[SessionStatus, str]:
        return SessionStatus.INTERRUPTED, f"stopped by signal {self.interrupted}; resume to finish"

    def _drive(self, remaining: List[str]) -> Tuple[SessionStatus, Optional[str]]:
        """Workers, one after another, until every case is recorded; the restart cap."""
        timeouts = self.plan.timeouts
        failures_in_a_row = 0
        while remaining:
            if self.interrupted:
                return self._stopped()
            ended = WorkerExchange(self, remaining, timeouts.worker_start_s, timeouts.grace_s).run()
            if ended.fatal is not None:
                return SessionStatus.ABORTED, ended.fatal
            if self.interrupted:
                return self._stopped()
            if remaining:
                failures_in_a_row = 0 if ended.finished_any else failures_in_a_row + 1
                self.restarts += 1
                if failures_in_a_row > self.plan.max_restarts:
                    log = os.path.join(self.scratch, f"worker-{self.workers_started - 1}.log")
                    return SessionStatus.ABORTED, (
                        f"{failures_in_a_row} workers in a row died before finishing a case "
                        f"(last log: {log}); fix the environment and resume"
                    )
        return SessionStatus.COMPLETE, None
