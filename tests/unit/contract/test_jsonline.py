"""The one bounded JSON reader: size, depth, keys and numbers refused before decoding."""

from __future__ import annotations

import json
import math
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from portbench_runner.contract import (
    DOCUMENT,
    LINE,
    ContractError,
    Fields,
    Limits,
    LineRefused,
    LineSplitter,
    clip,
    dump_line,
    number_value,
    read_json,
    strict,
)
from portbench_runner.contract.jsonline import _depth, _outside_strings

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.text(max_size=20)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=30,
)


def _true_depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_true_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_true_depth(v) for v in value.values()), default=0)
    return 0


@given(JSON_VALUES)
def test_the_scan_counts_depth_exactly_on_valid_json(value: object) -> None:
    data = json.dumps(value).encode()
    assert _depth(_outside_strings(data)) == _true_depth(value)
    assert read_json(data, DOCUMENT) == value


@pytest.mark.parametrize("depth", [33, 1000, 100_000])
def test_a_line_nested_past_the_limit_is_refused_before_decoding(depth: int) -> None:
    line = b"[" * depth + b"]" * depth
    assert depth > sys.getrecursionlimit() or depth > LINE.max_depth
    with pytest.raises(LineRefused, match="nested deeper than 32"):
        read_json(line)
    nested_objects = b'{"a":' * depth + b"1" + b"}" * depth
    with pytest.raises(LineRefused, match="nested deeper"):
        read_json(nested_objects)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"message": "[" * 5000 + '\\"{' * 100, "list": [[1]]})
    assert read_json(text) == json.loads(text)


def test_an_unterminated_string_is_refused_in_linear_time() -> None:
    # A regular expression for strings backtracks quadratically on this; the scan does not.
    line = b'["' + b'\\"' * 400_000
    with pytest.raises(LineRefused):
        read_json(line)


def test_size_keys_and_numbers() -> None:
    with pytest.raises(LineRefused, match="over the 10 limit"):
        read_json(b"[1,2,3,4,5,6]", Limits(10))
    many = json.dumps({str(i): i for i in range(LINE.max_keys + 1)})
    with pytest.raises(LineRefused, match="keys"):
        read_json(many)
    # Colons inside strings are no keys.
    assert read_json(json.dumps({"a": ":" * 50_000})) == {"a": ":" * 50_000}
    for token in (b"NaN", b"Infinity", b"-Infinity"):
        with pytest.raises(LineRefused, match="non-standard"):
            read_json(b"[" + token + b"]")
    with pytest.raises(LineRefused, match="characters"):
        read_json(b"[" + b"9" * 5000 + b"]")
    # A float literal that overflows decodes to an infinity, which the typed layer refuses
    # wherever it reads a number (checking every float here would cost a call per sample).
    assert read_json(b"[1e999]") == [math.inf]
    assert number_value(math.inf) is None and number_value("Infinity") == math.inf
    with pytest.raises(ContractError, match="not a number"):
        Fields(read_json(b'{"x": 1e999}'), "line", ContractError).number("x")
    with pytest.raises(LineRefused, match="not UTF-8"):
        read_json(b'["\xff"]')
    with pytest.raises(LineRefused, match="not JSON"):
        read_json(b'{"a": ')


def test_strict_encoding_round_trips_non_finite_values_by_name() -> None:
    line = dump_line(strict({"x": float("nan"), "y": [float("inf"), -float("inf"), 1.5]}))
    assert read_json(line) == {"x": "NaN", "y": ["Infinity", "-Infinity", 1.5]}
    with pytest.raises(ValueError):
        dump_line({"x": float("nan")})


def test_the_splitter_drops_and_counts_an_oversized_line() -> None:
    splitter = LineSplitter(limit=16)
    assert splitter.feed(b'{"a":1}\n{"b":') == [b'{"a":1}']
    assert splitter.feed(b"x" * 40) == []
    assert splitter.oversized == 1
    assert splitter.feed(b"tail\n{}\n") == [b"{}"]
    assert splitter.oversized == 1
    assert splitter.rest() is None


@given(st.text(min_size=0, max_size=300), st.integers(40, 200))
def test_clip_keeps_the_end_within_the_limit_and_is_idempotent(text: str, limit: int) -> None:
    once = clip(text, limit)
    assert len(once) <= limit
    assert clip(once, limit) == once
    if len(text) > limit:
        cut = len(text) - (len(once) - once.index("...") - 3)
        assert once.startswith(f"[{cut} characters cut]...")
        assert text.endswith(once[once.index("...") + 3 :])
