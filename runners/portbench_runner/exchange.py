"""The supervisor's exchange with one worker: a phase, and one handler per message kind.

A worker is asked for one case at a time. Each message it sends is handled only in the
phase that expects it and only for the case asked (``_EXPECTED``); anything else (a message
about another case, a second result, garbage) means the case's code wrote to the protocol
pipe: that case is recorded as ``error`` and its worker replaced. A case past its deadline is
killed and recorded as ``timeout``; a worker that dies mid-case gets that case recorded as
``crash`` (``memory`` when the OOM killer did it) at the stage it had reached.

The host is told which case runs (``start``) and when its result is in (``finished``): a
result is held until the worker moves on, so that a second result forged for the same case
still turns its record into a violation, and the host knows that no case is in flight in
between.
"""

from __future__ import annotations

import os
import select
import signal
import time
from typing import TYPE_CHECKING, Callable, Dict, List, NamedTuple, Optional, Tuple

from . import procs
from .contract import (
    Bye,
    CaseRecord,
    CaseResult,
    ContractError,
    ExitInfo,
    Fatal,
    Finished,
    Hello,
    Message,
    MessageType,
    Phase,
    Result,
    Run,
    Stage,
    StageReached,
    Start,
    Stop,
    crash_result,
    shown,
    timeout_result,
    violation_result,
)
from .diagnostics import say
from .workerproc import Item, WorkerProcess, oom_kill_count

if TYPE_CHECKING:
    from .supervisor import Supervisor

__all__ = ["POLL_S", "Ended", "WorkerExchange"]

POLL_S = 0.25


class Ended(NamedTuple):
    """How one worker's exchange ended: whether it finished a case, and the cell's fatal
    error if the worker could not run here at all."""

    finished_any: bool
    fatal: Optional[str] = None


#: The phase each worker message is expected in (and handled only in).
_EXPECTED: Dict[MessageType, Phase] = {
    MessageType.HELLO: Phase.STARTING,
    MessageType.FATAL: Phase.STARTING,
    MessageType.START: Phase.ASKED,
    MessageType.STAGE: Phase.RUNNING,
    MessageType.RESULT: Phase.RUNNING,
    MessageType.BYE: Phase.STOPPING,
}


def _describe(item: Item) -> str:
    if isinstance(item, ContractError):
        return str(item)
    case = getattr(item, "case", None)
    return f"a {item.type.value!r} message" + (f" for {shown(case, 80)!r}" if case else "")


class WorkerExchange:
    """Runs cases in one worker until it ends; :meth:`run` says how it ended."""

    def __init__(self, sup: Supervisor, remaining: List[str], start_s: float, grace_s: float):
        self.sup = sup
        self.remaining = remaining
        self.start_s = start_s
        self.grace_s = grace_s
        self.index = sup.workers_started
        self.worker = WorkerProcess(
            sup.python,
            sup.plan_path,
            os.path.join(sup.scratch, f"worker-{self.index}.log"),
            collect=sup.need_env,
        )
        sup.workers_started += 1
        self.me = os.getpid()
        self.phase = Phase.STARTING
        self.asked: Optional[str] = None
        self.prefetched: Optional[str] = None
        self.stage = Stage.SETUP
        self.held: Optional[CaseRecord] = None
        self.started_at = 0.0
        self.cases_here = 0
        self.finished_any = False
        self.deadline = time.monotonic() + start_s
        self._handlers: Dict[MessageType, Callable[[Message], Optional[Ended]]] = {
            MessageType.HELLO: self.on_hello,
            MessageType.FATAL: self.on_fatal,
            MessageType.START: self.on_start,
            MessageType.STAGE: self.on_stage,
            MessageType.RESULT: self.on_result,
            MessageType.BYE: self.on_bye,
        }

    # -- the loop -------------------------------------------------------------------------
    def run(self) -> Ended:
        exited = False
        while True:
            if self.sup.interrupted:
                self.worker.kill(self.grace_s)
                self.flush_held()
                return Ended(self.finished_any)
            items = self._poll()
            for item in items:
                ended = self._handle(item)
                if ended is not None:
                    return ended
            if self.worker.messages_closed:
                return self.on_exit()
            if self.worker.proc.poll() is not None:
                # Exited: one more round reads what it sent last (a grandchild may hold the
                # pipe open, so the end of the pipe is not waited for).
                if exited and not items:
                    return self.on_exit()
                exited = True
                continue
            if time.monotonic() >= self.deadline:
                return self.on_deadline()

    def _poll(self) -> List[Item]:
        """Wait for the worker (at most until the deadline), move its output to the log,
        write queued commands; the messages it sent."""
        worker = self.worker
        wait_s = max(0.0, min(POLL_S, self.deadline - time.monotonic()))
        writing = [worker.stdin_fd] if worker.outbox and worker.stdin_fd is not None else []
        try:
            ready, writable, _ = select.select(worker.waiting_fds(), writing, [], wait_s)
        except InterruptedError:
            return []
        if writable:
            worker.flush()
        if worker.output.fd in ready:
            worker.output.drain()
        return worker.read_messages() if worker.msg_fd in ready else []

    def _handle(self, item: Item) -> Optional[Ended]:
        """Dispatch one message to its handler, or to :meth:`on_violation` when it is not
        what this phase expects for this case."""
        if isinstance(item, ContractError):
            return self.on_violation(item)
        expected = _EXPECTED.get(item.type)
        case = getattr(item, "case", self.asked)
        if expected is not self.phase or case != self.asked:
            return self.on_violation(item)
        return self._handlers[item.type](item)

    # -- one handler per message kind ------------------------------------------------------
    def on_hello(self, message: Message) -> Optional[Ended]:
        assert isinstance(message, Hello)
        self.sup.worker_ready(message)
        self.worker.baseline = procs.descendants(self.me)
        self.ask_next()
        return None

    def on_fatal(self, message: Message) -> Optional[Ended]:
        assert isinstance(message, Fatal)
        self.worker.kill(self.grace_s)
        return Ended(self.finished_any, message.message)

    def on_start(self, message: Message) -> Optional[Ended]:
        assert isinstance(message, Start) and self.asked is not None
        self.phase, self.stage, self.started_at = Phase.RUNNING, Stage.SETUP, time.time()
        self.deadline = time.monotonic() + self.sup.plan.case_timeout(self.asked)
        # The last case's record and this case's start, in one write to the host.
        held, self.held = self.held, None
        if held is not None:
            self.sup.emit(held, Start(self.asked))
        else:
            self.sup.host.send(Start(self.asked))
        self.prefetch()
        return None

    def on_stage(self, message: Message) -> Optional[Ended]:
        assert isinstance(message, StageReached)
        self.stage = message.stage
        return None

    def on_result(self, message: Message) -> Optional[Ended]:
        assert isinstance(message, Result) and self.asked is not None
        worker, case_id = self.worker, self.asked
        # What the case printed before its result may still sit in the pipe, and the next
        # case (asked already) may have begun printing after its mark: the worker marks
        # the start of each case, its n-th here being segment n.
        worker.output.drain()
        segment = self.cases_here + 1
        output = worker.output.summary(segment)
        worker.output.forget(segment)
        # What appeared below us during the case, but the worker, is a stray.
        strays = procs.kill_tree(self.me, {worker.pid}, worker.baseline)
        self.sup.strays_killed += strays
        self.held = self.sup.record(
            case_id, message.result, worker.pid, self.index, output=output, strays=strays
        )
        self.sup.host.send(Finished(case_id))
        self.case_done(case_id)
        self.ask_next()
        return None

    def on_bye(self, message: Message) -> Optional[Ended]:
        assert isinstance(message, Bye)
        self.flush_held()
        return None

    # -- what is not a message of this phase ------------------------------------------------
    def on_violation(self, item: Item) -> Ended:
        """The case in flight (or, between cases, the one just finished) broke the protocol:
        its record says so, its worker is replaced; no other case's record changes."""
        what = _describe(item)
        self.sup.violations += 1
        if self.phase is Phase.RUNNING and self.asked is not None:
            case_id = self.asked
            record = self._record_now(case_id, violation_result(what))
            self.case_done(case_id)
            self.retire(what)
            self.sup.emit(record)
            return Ended(True)
        held = self.held
        if isinstance(item, Result) and held is not None and item.case == held.case:
            # A second result for the case just finished: it forged one of the two.
            forged = violation_result(f"two results for {shown(held.case)}")
            self.held = self.sup.factory.with_result(held, forged)
        # Between cases: the asked case has not started and goes to a fresh worker.
        self.retire(what)
        self.flush_held()
        return Ended(self.finished_any)

    def on_deadline(self) -> Ended:
        if self.phase is not Phase.RUNNING or self.asked is None:
            # Not started, or not answering between cases: a new worker takes over.
            self.retire(f"no answer within {self.start_s:g} s while {self.phase.value}")
            self.flush_held()
            return Ended(self.finished_any)
        case_id, pid = self.asked, self.worker.pid
        self.worker.kill(self.grace_s)
        limit = self.sup.plan.case_timeout(case_id)
        record = self._record_now(
            case_id, timeout_result(self.stage, limit, self.worker.output.tail_text()), pid=pid
        )
        self.case_done(case_id)
        self.sup.emit(record)
        procs.kill_tree(self.me, keep=set())
        return Ended(True)

    def on_exit(self) -> Ended:
        """The worker ended (or closed its pipe): what it left is drained; a case it was
        running is recorded as the crash it is."""
        pid = self.worker.pid
        code = self.worker.reap()
        procs.kill_tree(self.me, keep=set())
        self.flush_held()
        if self.phase is not Phase.RUNNING or self.asked is None:
            return Ended(self.finished_any)
        case_id = self.asked
        exit_info, oom = _exit_info(code, self.worker.oom_before)
        result = crash_result(self.stage, exit_info, self.worker.output.tail_text(), oom)
        self.sup.emit(self._record_now(case_id, result, pid=pid))
        self.case_done(case_id)
        return Ended(True)

    # -- asking for cases ------------------------------------------------------------------
    def ask_next(self) -> None:
        limit = self.sup.cases_per_worker
        self.deadline = time.monotonic() + self.start_s
        if self.prefetched is not None:
            # Asked already while the last case ran: the worker reads it only now.
            self.asked, self.prefetched, self.phase = self.prefetched, None, Phase.ASKED
        elif self.remaining and not (limit and self.cases_here >= limit):
            self.asked, self.phase = self.remaining[0], Phase.ASKED
            self.worker.send(self._run(self.asked, len(self.remaining)))
        else:
            self.asked, self.phase = None, Phase.STOPPING
            self.worker.send(Stop())

    def prefetch(self) -> None:
        """The next command waits in the worker's stdin while this case runs, which saves
        a round trip per case; the worker reads it only once this case has ended."""
        limit = self.sup.cases_per_worker
        if len(self.remaining) > 1 and not (limit and self.cases_here + 1 >= limit):
            following = self.remaining[1]
            if self.worker.send(self._run(following, len(self.remaining) - 1)):
                self.prefetched = following

    def _run(self, case_id: str, cases_left: int) -> Run:
        return Run(case_id, self.sup.warm_cap(cases_left))

    # -- records and the end of a worker ----------------------------------------------------
    def case_done(self, case_id: str) -> None:
        self.remaining.remove(case_id)
        self.finished_any = True
        self.cases_here += 1

    def _record_now(
        self, case_id: str, result: CaseResult, pid: Optional[int] = None
    ) -> CaseRecord:
        """A record the supervisor makes for the case in flight, timed from its start."""
        return self.sup.record(
            case_id,
            result,
            self.worker.pid if pid is None else pid,
            self.index,
            output=self.worker.output.summary(),
            started_at=self.started_at,
            duration_s=time.time() - self.started_at,
        )

    def flush_held(self) -> None:
        if self.held is not None:
            self.sup.emit(self.held)
            self.held = None

    def retire(self, why: str) -> None:
        """Replace the worker: everything it started goes with it, detached processes too."""
        say(f"worker {self.index} replaced: {shown(why, 200)}")
        self.worker.kill(self.grace_s)
        procs.kill_tree(self.me, keep=set())


def _exit_info(code: int, oom_before: Optional[int]) -> Tuple[ExitInfo, bool]:
    """How a worker ended, and whether the cgroup's OOM killer did it."""
    signal_name: Optional[str] = None
    if code < 0:
        try:
            signal_name = signal.Signals(-code).name
        except ValueError:
            signal_name = str(-code)
    oom_after = oom_kill_count()
    oom = (
        code == -signal.SIGKILL
        and oom_before is not None
        and oom_after is not None
        and oom_after > oom_before
    )
    return ExitInfo(None if code < 0 else code, signal_name, oom), oom
