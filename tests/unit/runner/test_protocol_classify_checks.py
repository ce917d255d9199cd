"""The message protocol, failure classification and result checks."""

from __future__ import annotations

import os

import pytest

from portbench_runner.api import case, clear_registry, registered_cases
from portbench_runner.checks import assert_close, assert_equal
from portbench_runner.classify import classify
from portbench_runner.contract import (
    WORKER_MESSAGES,
    Bye,
    MessageInvalid,
    Rule,
    Stage,
    Start,
    decode,
    encode,
)
from portbench_runner.signals import CheckFailed
from portbench_runner.workerproc import WorkerProcess


def test_protocol_round_trip_and_unknown_types_are_rejected() -> None:
    message = Start("f::a")
    assert decode(encode(message), WORKER_MESSAGES) == message
    with pytest.raises(MessageInvalid, match="unknown message type 'gossip'"):
        decode(b'{"type": "gossip"}', WORKER_MESSAGES)


def test_reader_splits_partial_lines() -> None:
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    worker = WorkerProcess.__new__(WorkerProcess)  # only its message pipe is used here
    from portbench_runner.contract import LineSplitter

    worker.msg_fd, worker.lines, worker.messages_closed = read_fd, LineSplitter(), False
    os.write(write_fd, encode(Start("a::b")) + b'{"type": "by')
    assert worker.read_messages() == [Start("a::b")]
    os.write(write_fd, b'e"}\n')
    assert worker.read_messages() == [Bye()]
    os.close(write_fd)
    assert worker.read_messages() == []
    assert worker.messages_closed
    os.close(read_fd)


class XlaRuntimeError(RuntimeError):
    pass


RULES = [
    Rule("r.dtype", "type", ("RuntimeError",), "not implemented for 'BFloat16'"),
    Rule("r.unimpl", "not_implemented", ("XlaRuntimeError",), "UNIMPLEMENTED"),
    Rule("r.setup-only", "memory", ("ValueError",), stages=(Stage.SETUP,)),
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


def test_runner_and_host_share_one_list_of_categories() -> None:
    from portbench.results import Category
    from portbench.rules import CATEGORIES as HOST_CATEGORIES
    from portbench_runner.contract import CATEGORIES

    assert HOST_CATEGORIES is CATEGORIES
    assert set(CATEGORIES) == {c.value for c in Category} - {"harness"}
