"""The two message protocols of a cell, both one strict-JSON object per line.

Worker <-> supervisor (inside the cell). The supervisor asks for one case at a time on the
worker's stdin; the worker answers on a dedicated pipe, never on stdout or stderr (frameworks
log there). A case runs in the worker's process and can write to that pipe too, so every
message is checked by the supervisor against the case it asked for (``supervisor.py``).

  supervisor -> worker:  ``run`` (case), ``stop``
  worker -> supervisor:  ``hello`` (pid, env facts), ``fatal`` (message), ``start`` (case),
                         ``stage`` (case, stage), ``result`` (case, outcome), ``bye``

Supervisor -> host (the cell's stdout; the host is the only writer of the records):

  ``env`` (env), ``start`` (case), ``record`` (record), ``session`` (session)

JSON here is strict: NaN and the infinities are not JSON, so :func:`strict` encodes them as
the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"`` (the host decodes them back).
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Dict, List, Tuple

__all__ = [
    "HOST_TYPES",
    "MAX_LINE_BYTES",
    "WORKER_TYPES",
    "LineBuffer",
    "MessageReader",
    "ProtocolError",
    "decode",
    "encode",
    "strict",
]

WORKER_TYPES = ("hello", "fatal", "start", "stage", "result", "bye")
COMMAND_TYPES = ("run", "stop")
HOST_TYPES = ("env", "start", "record", "session")
#: A line longer than this is garbage, whoever sent it (records are trimmed far below it).
MAX_LINE_BYTES = 1 << 20


class ProtocolError(ValueError):
    """A line that is not a message of the expected protocol."""


def strict(value: Any) -> Any:
    """``value`` with non-finite floats replaced by their names, so it encodes as strict JSON."""
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, dict):
        return {str(k): strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict(v) for v in value]
    return value


def encode(
    message: Dict[str, Any], types: Tuple[str, ...] = WORKER_TYPES + COMMAND_TYPES + HOST_TYPES
) -> bytes:
    """One line of strict JSON; raises ``TypeError``/``ValueError`` for what JSON cannot hold."""
    if message.get("type") not in types:
        raise ValueError(f"unknown message type {message.get('type')!r}")
    text = json.dumps(strict(message), separators=(",", ":"), allow_nan=False, sort_keys=True)
    return (text + "\n").encode("utf-8")


def _refuse_constant(name: str) -> Any:
    raise ProtocolError(f"non-standard JSON constant {name}")


def decode(line: bytes, types: Tuple[str, ...] = WORKER_TYPES) -> Dict[str, Any]:
    """A message of one of ``types``, or ``ProtocolError`` saying what is wrong with the line."""
    if len(line) > MAX_LINE_BYTES:
        raise ProtocolError(f"a line of {len(line)} bytes, over the {MAX_LINE_BYTES} limit")
    try:
        message = json.loads(line.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"not JSON ({str(exc)[:80]})") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"a JSON {type(message).__name__}, not an object")
    if message.get("type") not in types:
        raise ProtocolError(f"unknown message type {str(message.get('type'))[:40]!r}")
    return message


class LineBuffer:
    """Splits a byte stream into lines, refusing (not buffering) lines over ``MAX_LINE_BYTES``."""

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self._buffer = b""
        self._limit = limit
        self._discarding = False
        self.oversized = 0

    def feed(self, chunk: bytes) -> List[bytes]:
        lines: List[bytes] = []
        self._buffer += chunk
        while True:
            newline = self._buffer.find(b"\n")
            if newline < 0:
                if len(self._buffer) > self._limit:
                    # Too long to be a message: drop it up to its end, count it once.
                    if not self._discarding:
                        self.oversized += 1
                    self._discarding = True
                    self._buffer = b""
                return lines
            line, self._buffer = self._buffer[:newline], self._buffer[newline + 1 :]
            if self._discarding:
                self._discarding = False
                continue
            if line.strip():
                lines.append(line)

    def rest(self) -> bytes:
        """What is left without a newline (a line cut short when the stream ended)."""
        return b"" if self._discarding else self._buffer


class MessageReader:
    """Reads worker messages from a non-blocking pipe; bad lines come back as ``ProtocolError``."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._lines = LineBuffer()
        self.closed = False

    def read_available(self) -> List[Any]:
        """Messages (dicts) and errors (``ProtocolError``) for what the pipe holds now."""
        try:
            chunk = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return []
        if not chunk:
            self.closed = True
            return []
        before = self._lines.oversized
        items: List[Any] = []
        for line in self._lines.feed(chunk):
            try:
                items.append(decode(line))
            except ProtocolError as exc:
                items.append(exc)
        if self._lines.oversized > before:
            items.append(ProtocolError("a line over the message size limit"))
        return items
