"""The worker -> supervisor message protocol: one JSON object per line on a dedicated pipe.

The worker never writes protocol messages to stdout or stderr: frameworks log there.
Message types (closed set; anything else is a ``ValueError``):

- ``hello``  the worker is ready: pid, and (first worker only) environment facts
- ``fatal``  the worker cannot run any case (framework import or device selection failed)
- ``start``  a case begins (the supervisor then knows the in-flight case if the worker dies)
- ``result`` a case ended: its outcome fields
- ``bye``    every case given to this worker is done
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

try:  # Python 3.8 has TypedDict in typing; keep the import cheap and stdlib-only.
    from typing import TypedDict
except ImportError:  # pragma: no cover - Python < 3.8 is not supported
    TypedDict = dict  # type: ignore[misc,assignment]

__all__ = [
    "MESSAGE_TYPES",
    "Bye",
    "Fatal",
    "Hello",
    "MessageReader",
    "Result",
    "Start",
    "decode",
    "encode",
]

MESSAGE_TYPES = ("hello", "fatal", "start", "result", "bye")


class Hello(TypedDict):
    type: str
    pid: int
    env: Optional[Dict[str, Any]]


class Fatal(TypedDict):
    type: str
    message: str


class Start(TypedDict):
    type: str
    case: str


class Result(TypedDict):
    type: str
    case: str
    outcome: Dict[str, Any]


class Bye(TypedDict):
    type: str


def encode(message: Dict[str, Any]) -> bytes:
    if message.get("type") not in MESSAGE_TYPES:
        raise ValueError(f"unknown message type {message.get('type')!r}")
    return (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")


def decode(line: bytes) -> Dict[str, Any]:
    message = json.loads(line.decode("utf-8"))
    if not isinstance(message, dict) or message.get("type") not in MESSAGE_TYPES:
        kind = message.get("type") if isinstance(message, dict) else type(message).__name__
        raise ValueError(f"unknown message type {kind!r} from the worker")
    return message


class MessageReader:
    """Splits bytes read from a non-blocking pipe into messages."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = b""
        self.closed = False

    def read_available(self) -> List[Dict[str, Any]]:
        """Read what the pipe holds now; mark ``closed`` at end of file."""
        try:
            chunk = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return []
        if not chunk:
            self.closed = True
            return []
        self._buffer += chunk
        messages = []
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            if line.strip():
                messages.append(decode(line))
        return messages
