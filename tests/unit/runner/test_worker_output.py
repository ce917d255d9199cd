"""The supervisor's count of each case's output: the worker marks where each case begins in
the output stream itself, so a case that has already begun printing (its command was sent
while the last case ran) never lends its bytes to the case before it."""

from __future__ import annotations

import os
from pathlib import Path

from portbench_runner.workerproc import Output, case_mark

MARK = case_mark("0123456789abcdef")


def _output(tmp_path: Path) -> tuple[Output, int]:
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    return Output(read_fd, str(tmp_path / "worker.log"), MARK), write_fd


def test_a_case_that_began_before_the_last_result_was_read_keeps_its_own_bytes(
    tmp_path: Path,
) -> None:
    output, write_fd = _output(tmp_path)
    os.write(write_fd, b"start-up\n" + MARK + b"first case\n")
    # The first case's result is not read yet; the second case begins and prints.
    os.write(write_fd, MARK + b"second " * 100)
    output.drain()
    assert output.summary(1).bytes == len(b"first case\n")
    assert output.summary(2).bytes == 700
    assert output.summary(0).bytes == len(b"start-up\n")
    output.forget(1)
    assert output.summary(1).bytes == 0 and output.summary(2).bytes == 700
    os.close(write_fd)
    output.close()
    # The marks are neither logged nor counted.
    log = (tmp_path / "worker.log").read_bytes()
    assert log == b"start-up\nfirst case\n" + b"second " * 100


def test_a_mark_split_between_reads_is_still_a_mark(tmp_path: Path) -> None:
    output, write_fd = _output(tmp_path)
    cut = len(MARK) // 2
    os.write(write_fd, b"a" * 10 + MARK[:cut])
    output.drain()
    assert output.segment == 0 and output.summary(0).bytes == 10
    os.write(write_fd, MARK[cut:] + b"b" * 5)
    output.drain()
    assert output.segment == 1 and output.summary(1).bytes == 5
    # Bytes that only look like the start of a mark are counted once the pipe ends.
    os.write(write_fd, MARK[:3])
    os.close(write_fd)
    output.drain()
    assert output.summary(1).bytes == 8
    output.close()


def test_without_a_mark_everything_is_the_latest_segment(tmp_path: Path) -> None:
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    output = Output(read_fd, str(tmp_path / "worker.log"))
    os.write(write_fd, MARK + b"x" * 4)
    os.close(write_fd)
    output.drain()
    assert output.summary().bytes == len(MARK) + 4
    output.close()
