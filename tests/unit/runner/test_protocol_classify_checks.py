"""The message protocol, failure classification and result checks."""

from __future__ import annotations

import os

import pytest

from portbench_runner.api import case, clear_registry, registered_cases
from portbench_runner.checks import assert_close, assert_equal
from portbench_runner.classify import classify
from portbench_runner.protocol import MessageReader, decode, encode
from portbench_runner.signals import CheckFailed


def test_protocol_round_trip_and_unknown_types_are_rejected() -> None:
    message = {"type": "start", "case": "f::a"}
    assert decode(encode(message)) == message
    with pytest.raises(ValueError, match="unknown message type 'gossip'"):
        decode(b'{"type": "gossip"}')
    with pytest.raises(ValueError, match="unknown message type"):
        encode({"type": "gossip"})


def test_reader_splits_partial_lines() -> None:
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    reader = MessageReader(read_fd)
    data = encode({"type": "start", "case": "a::b"}) + b'{"type": "by'
    os.write(write_fd, data)
    assert reader.read_available() == [{"type": "start", "case": "a::b"}]
    os.write(write_fd, b'e"}\n')
    assert reader.read_available() == [{"type": "bye"}]
    os.close(write_fd)
    assert reader.read_available() == []
    assert reader.closed
    os.close(read_fd)


class XlaRuntimeError(RuntimeError):
    pass


RULES = [
    {
        "id": "r.dtype",
        "category": "type",
        "types": ["RuntimeError"],
        "message": "not implemented for 'BFloat16'",
    },
    {
        "id": "r.unimpl",
        "category": "not_implemented",
        "types": ["XlaRuntimeError"],
        "message": "UNIMPLEMENTED",
    },
    {"id": "r.setup-only", "category": "memory", "types": ["ValueError"], "stages": ["setup"]},
]


def test_first_matching_rule_wins_and_mro_names_count() -> None:
    assert classify(RuntimeError("\"add\" not implemented for 'BFloat16'"), "call", RULES) == (
        "type",
        "r.dtype",
    )
    assert classify(XlaRuntimeError("UNIMPLEMENTED: op"), "call", RULES) == (
        "not_implemented",
        "r.unimpl",
    )


def test_stages_restrict_rules_and_builtins_apply_last() -> None:
    assert classify(ValueError("x"), "setup", RULES) == ("memory", "r.setup-only")
    assert classify(ValueError("x"), "call", RULES) == ("other", None)
    assert classify(MemoryError(), "call", []) == ("memory", "builtin.memory")
    assert classify(NotImplementedError(), "call", []) == (
        "not_implemented",
        "builtin.not-implemented",
    )


def test_close_and_equal_checks() -> None:
    assert_close([1.0, 2.0], [1.0, 2.0 + 1e-7], rtol=1e-5, atol=0)
    with pytest.raises(CheckFailed, match="1 of 2 elements outside"):
        assert_close([1.0, 2.1], [1.0, 2.0], rtol=1e-5, atol=0)
    with pytest.raises(CheckFailed) as info:
        assert_close([1.0], [1.0, 2.0], rtol=1e-5, atol=0)
    assert info.value.category == "other"
    assert_close([float("nan")], [float("nan")], rtol=0, atol=0)
    with pytest.raises(CheckFailed, match="integer elements differ"):
        assert_close([1, 2], [1, 3], rtol=0.5, atol=1)
    assert_equal(3, 3)
    with pytest.raises(CheckFailed):
        assert_equal([1, 2], [2, 1])


def test_stacked_decorators_register_in_reading_order() -> None:
    clear_registry()

    @case("first", n=1)
    @case("second", n=2)
    def parametrized(ctx, n):
        return n

    @case("third")
    def single(ctx):
        return 3

    assert [c.name for c in registered_cases()] == ["first", "second", "third"]
    assert registered_cases()[1].params == {"n": 2}
    with pytest.raises(ValueError, match="must match"):
        case("bad name")(single)
    clear_registry()


def test_runner_and_host_agree_on_categories() -> None:
    from portbench.rules import CATEGORIES as HOST_CATEGORIES
    from portbench_runner.classify import CATEGORIES as RUNNER_CATEGORIES

    assert RUNNER_CATEGORIES == HOST_CATEGORIES
