"""One worker process as the supervisor holds it: its command pipe (stdin), its message
pipe, its output, and how it is killed and reaped.

Nothing here blocks on the worker. Commands go out through a buffer written as the pipe
takes them (a command longer than the pipe's buffer, a long case id, must never leave the
supervisor waiting on a worker that is itself waiting on the supervisor); messages and
output are read as they come.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
from typing import BinaryIO, Dict, List, Optional, Set, Union

from .contract import (
    OUTPUT_LOG_BYTES_PER_CASE,
    OUTPUT_LOG_BYTES_PER_WORKER,
    OUTPUT_TAIL_BYTES,
    WORKER_MESSAGES,
    ContractError,
    LineSplitter,
    Message,
    OutputInfo,
    decode,
    encode,
)

__all__ = [
    "OUTPUT_MARK_ENV",
    "RUNNERS_DIR",
    "WORKER_ENV",
    "Output",
    "WorkerProcess",
    "case_mark",
    "oom_kill_count",
]

RUNNERS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Worker environment additions. Inductor compiles in the worker's own process, so no
#: compile pool is mistaken for a case's stray processes (and killed) when a case ends.
WORKER_ENV = {"PYTHONUNBUFFERED": "1", "TORCHINDUCTOR_COMPILE_THREADS": "1"}
#: The worker's environment variable holding its output mark's token (it removes it at start).
OUTPUT_MARK_ENV = "PORTBENCH_OUTPUT_MARK"
#: What one read of a pipe takes.
CHUNK = 1 << 16


def oom_kill_count() -> Optional[int]:
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


def case_mark(token: str) -> bytes:
    """What the worker writes to its stdout before each case it starts: the supervisor
    splits the output stream there, so bytes a case printed are counted as that case's even
    when the worker, holding the next command already, starts the next case before the
    supervisor has read the last result. The token is the supervisor's, per worker."""
    return b"\x1eportbench-case:" + token.encode("ascii") + b"\x1e"


def _partial_suffix(data: bytes, mark: bytes) -> int:
    """How many bytes at the end of ``data`` could begin ``mark`` (kept for the next read)."""
    for size in range(min(len(mark) - 1, len(data)), 0, -1):
        if mark.startswith(data[-size:]):
            return size
    return 0


class Output:
    """A worker's stdout and stderr: logged up to a cap per case, the rest counted.

    ``mark`` (see :func:`case_mark`) splits the stream into segments, one per case the
    worker started (segment 0 is what it printed before its first case); the marks are
    neither logged nor counted."""

    def __init__(self, fd: int, log_path: str, mark: bytes = b"") -> None:
        self.fd = fd
        # The log informs; a log that cannot be opened or written (a full disk, a file size
        # limit) is given up, and the case's output is then counted as dropped, never a
        # reason for the supervisor to fail (it would take an innocent case with it).
        self._log: Optional[BinaryIO] = None
        try:
            self._log = open(log_path, "ab")
        except OSError:
            pass
        self.mark = mark
        self.carry = b""
        self.tail = b""
        self.segment = 0
        #: Per segment: [bytes, bytes logged].
        self.counts: Dict[int, List[int]] = {0: [0, 0]}
        self.worker_logged = 0
        self.closed = False

    def drain(self) -> None:
        while not self.closed:
            try:
                chunk = os.read(self.fd, CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                self.closed = True
                carry, self.carry = self.carry, b""
                self._count(carry)
                return
            self._split(chunk)

    def _split(self, chunk: bytes) -> None:
        data, self.carry = self.carry + chunk, b""
        if self.mark:
            at = data.find(self.mark)
            while at >= 0:
                self._count(data[:at])
                self.segment += 1
                self.counts.setdefault(self.segment, [0, 0])
                data = data[at + len(self.mark) :]
                at = data.find(self.mark)
            keep = _partial_suffix(data, self.mark)
            if keep:
                data, self.carry = data[:-keep], data[-keep:]
        self._count(data)

    def _count(self, data: bytes) -> None:
        if not data:
            return
        counts = self.counts[self.segment]
        counts[0] += len(data)
        room = min(
            OUTPUT_LOG_BYTES_PER_CASE - counts[1],
            OUTPUT_LOG_BYTES_PER_WORKER - self.worker_logged,
        )
        if room > 0 and self._log is not None:
            kept = data[:room]
            try:
                self._log.write(kept)
                self._log.flush()
            except OSError:
                self._give_up_log()
            else:
                counts[1] += len(kept)
                self.worker_logged += len(kept)
        self.tail = (self.tail + data)[-OUTPUT_TAIL_BYTES:]

    def summary(self, segment: Optional[int] = None) -> OutputInfo:
        """What segment ``segment`` (default: the latest) printed, and how much of it the
        log dropped."""
        printed, logged = self.counts.get(self.segment if segment is None else segment, [0, 0])
        return OutputInfo(printed, printed - logged)

    def forget(self, segment: int) -> None:
        """Drop the counts of ``segment`` and those before it (their cases are recorded)."""
        for number in [n for n in self.counts if n <= segment and n != self.segment]:
            del self.counts[number]

    def tail_text(self) -> str:
        return self.tail.decode("utf-8", "replace")

    def _give_up_log(self) -> None:
        log, self._log = self._log, None
        try:
            if log is not None:
                log.close()
        except OSError:
            pass  # what the buffer held is lost with the log

    def close(self) -> None:
        self.drain()
        os.close(self.fd)
        self._give_up_log()


#: What reading the message pipe gives: a message, or why a line was not one.
Item = Union[Message, ContractError]


class WorkerProcess:
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
        token = os.urandom(12).hex()
        env[OUTPUT_MARK_ENV] = token
        cmd = [python, "-m", "portbench_runner", "work", "--plan", plan_path]
        cmd += ["--pipe", str(msg_write), "--parent", str(os.getpid())]
        cmd += ["--collect-env"] if collect else []
        self.oom_before = oom_kill_count()
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
        assert self.proc.stdin is not None
        self.stdin_fd: Optional[int] = self.proc.stdin.fileno()
        os.set_blocking(self.stdin_fd, False)
        self.outbox = b""
        self.msg_fd = msg_read
        self.lines = LineSplitter()
        self.messages_closed = False
        self.output = Output(out_read, log_path, case_mark(token))
        self.baseline: Set[int] = set()

    @property
    def pid(self) -> int:
        return self.proc.pid

    # -- commands: buffered, written as the pipe takes them ----------------------------------
    def send(self, message: Message) -> bool:
        """Queue a command; False if the worker no longer reads its commands."""
        if self.stdin_fd is None:
            return False
        self.outbox += encode(message)
        return self.flush()

    def flush(self) -> bool:
        """Write what the pipe takes now; False if the worker closed it."""
        while self.outbox and self.stdin_fd is not None:
            try:
                written = os.write(self.stdin_fd, self.outbox)
            except BlockingIOError:
                return True
            except OSError as exc:
                if exc.errno in (errno.EPIPE, errno.EBADF):
                    self._close_stdin()
                    return False
                raise
            self.outbox = self.outbox[written:]
        return self.stdin_fd is not None

    def _close_stdin(self) -> None:
        self.outbox = b""
        self.stdin_fd = None
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    def waiting_fds(self) -> List[int]:
        """The descriptors a select should wait on for reading."""
        return [self.msg_fd] + ([] if self.output.closed else [self.output.fd])

    # -- messages ---------------------------------------------------------------------------
    def read_messages(self) -> List[Item]:
        """Messages (and refusals: a line that is no message) the pipe holds now."""
        try:
            chunk = os.read(self.msg_fd, CHUNK)
        except BlockingIOError:
            return []
        if not chunk:
            self.messages_closed = True
            return []
        before = self.lines.oversized
        items: List[Item] = []
        for line in self.lines.feed(chunk):
            try:
                items.append(decode(line, WORKER_MESSAGES))
            except ContractError as exc:
                items.append(exc)
        if self.lines.oversized > before:
            items.append(ContractError("garbage: a line over the message size limit"))
        return items

    # -- the end ----------------------------------------------------------------------------
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
        self._close_stdin()
        if self.msg_fd >= 0:
            os.close(self.msg_fd)
            self.msg_fd = -1
            self.output.close()
        return code
