"""Process hygiene inside a cell: who dies with whom, and which processes are a case's strays.

Linux-only facilities (``prctl``, ``/proc``) are used where present and skipped elsewhere, so
the runner still works (with less hygiene) on other systems.

- The supervisor makes itself non-dumpable: processes of the same user (the case's code runs
  as the same user) can then neither open its ``/proc/PID/fd`` (its stdout carries the
  records to the host) nor read its memory or attach to it.
- The supervisor is a child subreaper: a process a case detaches (``setsid`` and a double
  fork) is re-parented to the supervisor instead of init, so it can still be found.
- A worker asks for SIGKILL when its parent dies, so it never outlives its supervisor.
- A worker limits the size of the files it writes (``RLIMIT_FSIZE``, soft and hard): a
  case writing a huge file, or seeking far into a sparse one, gets EFBIG and fails alone;
  the supervisor, which writes the records and logs, is not limited. SIGXFSZ is ignored so
  that the write fails rather than killing the worker (a case that restores the signal is
  killed by it and recorded as a crash: still that case alone). A process that may raise
  its hard limit (root with CAP_SYS_RESOURCE) can undo this: it guards against accidents,
  not against a hostile case.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import Callable, Dict, Iterable, List, Optional, Set

__all__ = [
    "descendants",
    "die_with_parent",
    "kill_pids",
    "kill_tree",
    "limit_file_size",
    "make_subreaper",
    "make_undumpable",
    "reap_adopted",
]

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def make_undumpable() -> bool:
    return _prctl(_PR_SET_DUMPABLE, 0)


def make_subreaper() -> bool:
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(expected_parent: int, sig: int = signal.SIGKILL) -> None:
    """Get ``sig`` when the parent dies (SIGKILL by default); exit now if it already has."""
    _prctl(_PR_SET_PDEATHSIG, int(sig))
    # The parent may have died before the prctl: then we were re-parented already.
    if expected_parent and os.getppid() != expected_parent:
        os._exit(3)


def limit_file_size(limit: int) -> bool:
    """Limit every file this process and its children write to ``limit`` bytes (never above
    a lower limit already set); False where the platform has no such limit."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return False
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    except (ValueError, OSError):
        return False
    return True


def _parents(live_only: bool = True) -> Dict[int, int]:
    """pid -> parent pid for every process visible in /proc (zombies left out unless asked)."""
    parents: Dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return parents
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and not (live_only and fields[0] == b"Z"):
            parents[int(name)] = int(fields[1])
    return parents


def _children_of(pid: int) -> Optional[List[int]]:
    """Direct children of ``pid`` from /proc/PID/task/*/children; None where the kernel has
    no such file (then the whole process table is read instead)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    children: List[int] = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as handle:
                children.extend(int(c) for c in handle.read().split())
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{tid}"):
                continue  # the thread ended meanwhile
            return None
        except (OSError, ValueError):
            continue
    return children


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return True  # gone
    return stat[stat.rfind(b")") + 2 :].split()[:1] == [b"Z"]


def _walk(root: int, children_of: Callable[[int], Optional[List[int]]]) -> Optional[Set[int]]:
    """Every process below ``root`` by ``children_of``; None if it cannot tell."""
    found: Set[int] = set()
    stack = [root]
    while stack:
        children = children_of(stack.pop())
        if children is None:
            return None
        for child in children:
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def descendants(root: int) -> Set[int]:
    """Every live process below ``root`` (not ``root`` itself).

    Walks each process's children files (cost grows with the tree, not the machine); falls
    back to reading the whole process table where the kernel lacks them.
    """
    found = _walk(root, _children_of)
    if found is not None:
        return {pid for pid in found if not _is_zombie(pid)}
    table: Dict[int, List[int]] = {}
    for pid, parent in _parents().items():
        table.setdefault(parent, []).append(pid)
    return _walk(root, lambda pid: table.get(pid, [])) or set()


def kill_pids(pids: Iterable[int]) -> int:
    """SIGKILL each pid (ignoring ones already gone); how many were signalled."""
    killed = 0
    for pid in sorted(set(pids)):
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except (ProcessLookupError, PermissionError):
            continue
    return killed


def kill_tree(root: int, keep: Set[int], only_new_since: Optional[Set[int]] = None) -> int:
    """Kill every process below ``root`` but ``keep`` (and, if given, but those in
    ``only_new_since``), then reap the orphans adopted meanwhile; how many were killed."""
    doomed = descendants(root) - keep - (only_new_since or set())
    killed = kill_pids(doomed) if doomed else 0
    if killed or only_new_since is None:
        # Reading the process table costs a millisecond: not after every quiet case.
        reap_adopted(exclude=keep)
    return killed


def reap_adopted(exclude: Set[int]) -> None:
    """Collect exited children other than ``exclude`` (the workers, which ``Popen`` reaps):
    orphans the supervisor adopted as subreaper would otherwise stay zombies."""
    me = os.getpid()
    for pid, parent in _parents(live_only=False).items():
        if parent != me or pid in exclude:
            continue
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
