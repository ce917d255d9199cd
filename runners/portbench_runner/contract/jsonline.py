"""The one bounded JSON reader, the one line splitter and the one strict encoder.

Every line or document that crosses a boundary (a worker's pipe, a supervisor's stdout, a
results file, a Ray node's archive, a census listing, plan.json, env.json) is decoded here,
within limits checked *before* the decoder runs:

- size (bytes of the line or document);
- nesting depth: Python's decoder recurses once per level, so a line of a thousand ``[``
  would raise RecursionError inside it; depth is counted by a linear scan that skips
  strings, so a line nested past the limit is refused without being decoded;
- keys (a line of a million tiny keys is small in bytes and large in memory);
- numbers: NaN and the infinities are not JSON (their tokens are refused here); an integer
  token longer than ``MAX_NUMBER_CHARS`` is refused (Python 3.8 turns one into an int in
  quadratic time). A float literal that overflows (``1e999``) decodes to an infinity, which
  the typed layer refuses wherever it reads a number (``fields.number_value``): checking it
  here would cost a Python call per float of every record.

What fails is a :class:`LineRefused` (a ``ValueError``) whose message says why in a few words;
the caller names the line. The scans cost a ``bytes.count`` each on an ordinary record: the
precise pass runs only when those counts could exceed a limit.

JSON here is strict: the encoder writes non-finite floats as the strings ``"NaN"``,
``"Infinity"`` and ``"-Infinity"`` (:func:`strict`), which the typed layer reads back.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any, List, Optional, Union

from .bounds import (
    MAX_DEPTH,
    MAX_DOCUMENT_BYTES,
    MAX_DOCUMENT_KEYS,
    MAX_LINE_BYTES,
    MAX_LINE_KEYS,
    MAX_NUMBER_CHARS,
)

__all__ = [
    "DOCUMENT",
    "LINE",
    "Limits",
    "LineRefused",
    "LineSplitter",
    "dump_line",
    "dumps",
    "read_json",
    "strict",
]


class LineRefused(ValueError):
    """A line or document the bounded reader will not decode; the message says why."""


class Limits:
    """What one read may hold: bytes, nesting depth, keys."""

    __slots__ = ("max_bytes", "max_depth", "max_keys")

    def __init__(self, max_bytes: int, max_depth: int = MAX_DEPTH, max_keys: int = 0) -> None:
        self.max_bytes = max_bytes
        self.max_depth = max_depth
        self.max_keys = max_keys

    def __repr__(self) -> str:
        return f"Limits({self.max_bytes}, {self.max_depth}, {self.max_keys})"


#: A line of a protocol or a results file.
LINE = Limits(MAX_LINE_BYTES, MAX_DEPTH, MAX_LINE_KEYS)
#: plan.json, env.json, a census listing.
DOCUMENT = Limits(MAX_DOCUMENT_BYTES, MAX_DEPTH, MAX_DOCUMENT_KEYS)

_QUOTE_OR_BACKSLASH = re.compile(rb'["\\]')
_NOT_BRACKET = re.compile(rb"[^\[\]{}]")
_DELTA = [0] * 256
_DELTA[ord("[")] = _DELTA[ord("{")] = 1
_DELTA[ord("]")] = _DELTA[ord("}")] = -1


def _outside_strings(data: bytes) -> bytes:
    """``data`` with its JSON strings removed, in one pass over its quotes and backslashes
    (a regular expression for strings can take quadratic time on an unterminated one)."""
    parts: List[bytes] = []
    start = 0
    in_string = False
    escaped_until = -1
    for match in _QUOTE_OR_BACKSLASH.finditer(data):
        at = match.start()
        if at < escaped_until:
            continue
        if not in_string:
            if data[at] == 0x22:  # a quote opens a string
                parts.append(data[start:at])
                in_string = True
        elif data[at] == 0x5C:  # a backslash escapes the next byte
            escaped_until = at + 2
        else:
            in_string = False
            start = at + 1
    if not in_string:
        # An unterminated string ends the decoder's reading too: what follows never counts.
        parts.append(data[start:])
    return b"".join(parts)


def _depth(structure: bytes) -> int:
    """The deepest nesting in ``structure`` (JSON with its strings removed)."""
    brackets = _NOT_BRACKET.sub(b"", structure)
    if not brackets:
        return 0
    return max(accumulate(map(_DELTA.__getitem__, brackets)))


def _check_shape(data: bytes, limits: Limits) -> None:
    """Refuse ``data`` nested deeper or holding more keys than ``limits`` allow, without
    decoding it. Brackets and colons inside strings do not count (they are stripped first),
    but that pass runs only when the plain counts could exceed a limit."""
    opened = data.count(b"[") + data.count(b"{")
    keys = data.count(b":")
    deep = opened > limits.max_depth
    many = bool(limits.max_keys) and keys > limits.max_keys
    if not (deep or many):
        return
    structure = _outside_strings(data)
    if deep and _depth(structure) > limits.max_depth:
        raise LineRefused(f"nested deeper than {limits.max_depth} levels")
    if many and structure.count(b":") > limits.max_keys:
        raise LineRefused(f"more than {limits.max_keys} keys")


def _refuse_constant(name: str) -> Any:
    raise LineRefused(f"not JSON (the non-standard constant {name})")


def _integer(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise LineRefused(f"a number of {len(text)} characters")
    return int(text)


# One decoder for every read (json.loads with hooks would build one per call).
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_int=_integer)


def read_json(data: Union[bytes, str], limits: Limits = LINE) -> object:
    """The JSON value of ``data`` (one line or one document), checked against ``limits``.

    Raises :class:`LineRefused` saying what is wrong: too large, too deep, too many keys,
    not UTF-8, not JSON, a non-finite or oversized number.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if len(raw) > limits.max_bytes:
        raise LineRefused(f"{len(raw)} bytes, over the {limits.max_bytes} limit")
    _check_shape(raw, limits)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LineRefused("not UTF-8") from None
    try:
        return _DECODER.decode(text)
    except LineRefused:
        raise
    except json.JSONDecodeError as exc:
        # Where it failed, not the decoder's whole account: a note that stays one short line.
        raise LineRefused(f"not JSON ({exc.msg}, at byte {exc.pos})") from None
    except (ValueError, RecursionError) as exc:
        # RecursionError cannot happen within the depth limit; caught all the same, since
        # a reader of untrusted input must never die of its input.
        raise LineRefused(f"not JSON ({str(exc)[:80]})") from None


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


def dumps(value: object) -> str:
    """One line of strict JSON, keys sorted; ``ValueError`` for NaN or the infinities (the
    typed layer writes those as strings; free-form parts go through :func:`strict`)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, allow_nan=False)


def dump_line(value: object) -> bytes:
    """One newline-terminated line of strict JSON, for a protocol pipe: keys in the order the
    typed layer writes them (a file's lines, :func:`dumps`, have them sorted)."""
    return (json.dumps(value, separators=(",", ":"), allow_nan=False) + "\n").encode("utf-8")


class LineSplitter:
    """Bytes in, whole lines out; a line over the size limit is dropped (not buffered) and
    counted, up to its end."""

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
                    self.oversized += 0 if self._discarding else 1
                    self._discarding = True
                    self._buffer = b""
                return lines
            line, self._buffer = self._buffer[:newline], self._buffer[newline + 1 :]
            if self._discarding:
                self._discarding = False
            elif line.strip():
                lines.append(line)

    def rest(self) -> Optional[bytes]:
        """What is left without a newline (a line cut short when the stream ended)."""
        return None if self._discarding or not self._buffer.strip() else self._buffer
