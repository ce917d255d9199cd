"""What each flavor's containers get from the accelerator table, as docker SDK options, and
the backend each flavor may run on (MPS: no containers)."""

from __future__ import annotations

import grp
import os
from pathlib import Path

import pytest

pytest.importorskip("docker")

from portbench.accelerators import backend_for, get_accelerator, load_accelerators
from portbench.backends.docker_backend import container_options, device_groups
from portbench.errors import UsageError


def _host_gids(*names: str) -> set[int]:
    gids = set()
    for name in names:
        try:
            gids.add(grp.getgrnam(name).gr_gid)
        except KeyError:
            continue
    return gids


def test_rocm_gets_amds_documented_options() -> None:
    options = container_options(get_accelerator("rocm-mi300x").container)
    assert options["devices"] == ["/dev/kfd:/dev/kfd:rwm", "/dev/dri:/dev/dri:rwm"]
    assert options["ipc_mode"] == "host"
    assert options["security_opt"] == ["seccomp=unconfined"]
    # The host's video and render groups by their ids here (the devices are absent here).
    assert set(options.get("group_add", [])) == _host_gids("video", "render") - {0}
    assert "device_requests" not in options and "privileged" not in options


def test_xpu_gets_the_render_nodes_and_nothing_of_rocms() -> None:
    options = container_options(get_accelerator("xpu-max1550").container)
    assert options["devices"] == ["/dev/dri:/dev/dri:rwm"]
    assert "ipc_mode" not in options and "security_opt" not in options


def test_the_other_flavors_keep_their_options() -> None:
    assert container_options(get_accelerator("cpu").container) == {}
    gpu = container_options(get_accelerator("gpu-h100").container)
    assert [r["Capabilities"] for r in gpu["device_requests"]] == [[["gpu"]]]
    for ident in ("tpu", "tpu-v5e", "tpu-v6e"):
        tpu = container_options(get_accelerator(ident).container)
        assert tpu == {"privileged": True, "network_mode": "host", "shm_size": "16g"}
    # MPS never runs in a container: it has no options at all.
    assert get_accelerator("mps").container == {}


def test_every_rocm_and_xpu_id_shares_its_flavors_options() -> None:
    table = load_accelerators()
    for flavor in ("rocm", "xpu"):
        generic = table[flavor].container
        assert all(a.container == generic for a in table.values() if a.flavor == flavor)


def test_device_groups_are_the_groups_owning_the_device_files(tmp_path: Path) -> None:
    folder = tmp_path / "dri"
    folder.mkdir()
    (folder / "renderD128").write_text("")
    own = os.stat(folder / "renderD128").st_gid
    gids = device_groups(["no-such-group-here"], [str(folder)])
    assert gids == ([own] if own else [])
    assert device_groups([], [str(tmp_path / "absent")]) == []


def test_mps_runs_on_the_venv_backend_and_refuses_docker() -> None:
    mps = get_accelerator("mps")
    assert backend_for(mps, "auto", "current") == "venv"
    assert backend_for(mps, "auto", "host") == "auto"
    assert backend_for(get_accelerator("rocm"), "auto", "current") == "auto"
    with pytest.raises(UsageError) as caught:
        backend_for(mps, "docker", "current")
    assert str(caught.value) == (
        "accelerator 'mps' runs on macOS, where no container reaches the GPU; use --backend "
        "venv (the default there) or --profile host"
    )
