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
from typing import BinaryIO, List, Optional, Set, Union

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

__all__ = ["RUNNERS_DIR", "WORKER_ENV", "Output", "WorkerProcess", "oom_kill_count"]

RUNNERS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Worker environment additions. Inductor compiles in the worker's own process, so no
#: compile pool is mistaken for a case's stray processes (and killed) when a case ends.
WORKER_ENV = {"PYTHONUNBUFFERED": "1", "TORCHINDUCTOR_COMPILE_THREADS": "1"}
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


class Output:
    """A worker's stdout and stderr: logged up to a cap per case, the rest counted."""

    def __init__(self, fd: int, log_path: str) -> None:
        self.fd = fd
        # The log informs; a log that cannot be opened or written (a full disk, a file size
        # limit) is given up, and the case's output is then counted as dropped, never a
        # reason for the supervisor to fail (it would take an innocent case with it).
        self._log: Optional[BinaryIO] = None
        try:
            self._log = open(log_path, "ab")
        except OSError:
            pass
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
                chunk = os.read(self.fd, CHUNK)
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
            if room > 0 and self._log is not None:
                kept = chunk[:room]
                try:
                    self._log.write(kept)
                    self._log.flush()
                except OSError:
                    self._give_up_log()
                else:
                    self.case_logged += len(kept)
                    self.worker_logged += len(kept)
            self.tail = (self.tail + chunk)[-OUTPUT_TAIL_BYTES:]

    def summary(self) -> OutputInfo:
        return OutputInfo(self.case_bytes, self.case_bytes - self.case_logged)

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
        self.output = Output(out_read, log_path)
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
