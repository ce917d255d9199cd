"""The docker backend's container, seen through a recording fake of the engine's API: what
it mounts and bounds, and that engine errors mid-run end in one sentence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("docker")

from docker.errors import APIError

from portbench.backends import docker_backend
from portbench.errors import CellFailed


class _Container:
    def __init__(self, fail_on_reload: bool) -> None:
        self.id = "c0ffee"
        self.status = "running"
        self.fail_on_reload = fail_on_reload
        self.removed = False
        self.stopped = False

    def start(self) -> None:
        pass

    def reload(self) -> None:
        if self.fail_on_reload:
            raise APIError("500 Server Error: the engine went away")
        self.status = "exited"

    def wait(self) -> dict[str, int]:
        return {"StatusCode": 0}

    def stop(self, timeout: int) -> None:
        self.stopped = True

    def remove(self, force: bool) -> None:
        self.removed = True


class _Client:
    def __init__(self, container: _Container) -> None:
        self.container = container
        self.created: dict[str, Any] = {}
        self.containers = self
        self.api = self

    def create(self, image: str, command: list[str], **options: Any) -> _Container:
        self.created = {"image": image, "command": command, **options}
        return self.container

    def attach(self, container_id: str, **options: Any) -> Any:
        assert options["stream"] and options["demux"]
        return iter([(b'{"type": "session"}\n', None), (None, b"a diagnostic\n")])

    def attach_socket(self, container_id: str, params: dict[str, int]) -> Any:
        assert params["stdin"]  # the container's stdin is this process's attach
        self.stdin = _Socket()
        return self.stdin

    def wait(self, container_id: str, timeout: Any = None, condition: Any = None) -> Any:
        # Until removed (the container removes itself), with no HTTP timeout.
        assert timeout is None and condition == "removed"
        if self.container.fail_on_reload:
            raise APIError("500 Server Error: the engine went away")
        return {"StatusCode": 0}


class _Socket:
    def __init__(self) -> None:
        self.closed = False

    def shutdown(self, how: int) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail: bool) -> tuple[_Client, int, list]:
    client = _Client(_Container(fail))
    monkeypatch.setattr(docker_backend, "docker_client", lambda: client)
    backend = docker_backend.DockerBackend()
    out: list[bytes] = []
    status = backend._run_container(
        "portbench/jax-cpu:t",
        {},
        tmp_path,
        60,
        ["python3", "-m", "portbench_runner", "supervise"],
        {str(tmp_path / "plan.json"): {"bind": "/portbench/plan.json", "mode": "ro"}},
        on_stdout=out.append,
        on_stderr=lambda chunk: None,
    )
    return client, status, out


def test_the_container_is_sealed_and_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, status, out = _run(tmp_path, monkeypatch, fail=False)
    options = client.created
    assert status == 0 and out == [b'{"type": "session"}\n']
    assert options["read_only"] and options["network_mode"] == "none"
    assert options["cap_drop"] == ["ALL"] and "no-new-privileges" in options["security_opt"]
    assert all("size=" in spec for spec in options["tmpfs"].values())
    assert options["log_config"]["Config"]["max-size"]
    writable = [m["bind"] for m in options["volumes"].values() if m["mode"] != "ro"]
    assert writable == [], "a host folder is writable from the cell"
    assert client.container.removed
    # The host's death closes the container's stdin; the container then removes itself.
    assert options["stdin_open"] and options["auto_remove"]
    assert client.stdin.closed


def test_an_engine_error_while_the_cell_runs_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(CellFailed, match="the Docker engine failed while") as caught:
        _run(tmp_path, monkeypatch, fail=True)
    assert "\n" not in str(caught.value)
