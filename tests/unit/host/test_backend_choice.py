"""Backend choice: the host profile runs on the host; auto falls back to venv, and says so."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from portbench import cellrun
from portbench.errors import UsageError


class _Unavailable:
    name = "docker"

    def available(self) -> tuple[bool, str]:
        return False, "no Docker engine answers (connection refused); install and start one"


def test_auto_without_an_engine_uses_venv_and_says_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_make = cellrun.make_backend

    def make(name: str, *args: object, **kwargs: object) -> object:
        return _Unavailable() if name == "docker" else real_make(name, *args, **kwargs)

    # cellrun builds its backends with the one factory, portbench.backends.make_backend.
    monkeypatch.setattr(cellrun, "make_backend", make)
    out = io.StringIO()
    backend = cellrun.choose_backend(
        "auto", "current", Console(file=out, width=200, color_system=None)
    )
    assert backend.name == "venv"
    text = out.getvalue()
    assert "no Docker engine answers" in text
    assert "using the venv backend" in text
    assert "start a Docker engine" in text


def test_host_profile_and_host_backend_go_together() -> None:
    console = Console(file=io.StringIO())
    assert cellrun.choose_backend("auto", "host", console).name == "host"
    with pytest.raises(UsageError, match="host profile runs on the host backend only"):
        cellrun.choose_backend("venv", "host", console)
    with pytest.raises(UsageError, match="--python goes with the host profile"):
        cellrun.choose_backend("auto", "current", console, python="/usr/bin/python3")
