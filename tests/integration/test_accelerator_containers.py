"""ROCm's container options through a real Docker engine, on top of the cell's seal.

This machine has no AMD GPU, so /dev/kvm stands in for /dev/kfd: a character device only
its group may open (as /dev/kfd is the render group's). The cell's unprivileged user must
open it read-write through the group the host lends it, run without a seccomp filter
(AMD's documented setting) in the host's IPC namespace, and keep every other part of the
seal: no capabilities, no new privileges, no network, a read-only root."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from portbench.accelerators import get_accelerator
from portbench.backends.docker_backend import DockerBackend

pytestmark = pytest.mark.docker

STAND_IN = "/dev/kvm"

PROBE = (
    "exec 3<>{dev} && echo opened; "
    "grep -E '^(Seccomp|CapEff|NoNewPrivs):' /proc/self/status; "
    "readlink /proc/self/ns/ipc; id -u; "
    "touch /etc/x 2>/dev/null || echo read-only"
)


def test_rocm_options_open_a_group_owned_device_in_a_sealed_container(
    tmp_path: Path, docker_client: Any, bookworm_base: str
) -> None:
    if not os.path.exists(STAND_IN):
        pytest.skip(f"{STAND_IN} (the stand-in for /dev/kfd) is not on this machine")
    if os.stat(STAND_IN).st_mode & 0o006:
        pytest.skip(f"{STAND_IN} is open to everyone here, so it proves nothing about groups")
    table = dict(get_accelerator("rocm-mi300x").container)
    table["devices"] = [STAND_IN]
    out: list[bytes] = []
    status = DockerBackend()._run_container(
        "portbench/base:bookworm",
        table,
        tmp_path,
        120,
        ["sh", "-c", PROBE.format(dev=STAND_IN)],
        {},
        on_stdout=out.append,
        on_stderr=out.append,
    )
    text = b"".join(out).decode()
    assert status == 0, text
    lines = text.split()
    assert "opened" in lines, text
    assert "Seccomp:\t0" in text  # no filter, where a default container has mode 2
    assert "CapEff:\t0000000000000000" in text and "NoNewPrivs:\t1" in text
    assert os.readlink("/proc/self/ns/ipc") in lines  # the host's IPC namespace
    assert "10001" in lines and "read-only" in lines


def test_without_the_lent_group_the_device_stays_closed(
    docker_client: Any, bookworm_base: str
) -> None:
    if not os.path.exists(STAND_IN) or os.stat(STAND_IN).st_mode & 0o006:
        pytest.skip(f"{STAND_IN} is missing or open to everyone here")
    # The device alone, as the cell's user, no group lent: what the first test would be
    # without the table's groups.
    output = docker_client.containers.run(
        "portbench/base:bookworm",
        ["sh", "-c", f"(exec 3<>{STAND_IN}) 2>/dev/null && echo opened || echo refused"],
        devices=[f"{STAND_IN}:{STAND_IN}:rwm"],
        user="10001:10001",
        network_mode="none",
        remove=True,
    )
    assert b"refused" in output
