"""Backends run a cell's plan somewhere: a container, a pinned venv, or this interpreter.

What each keeps a case away from (``Backend.isolation``):
- docker: sealed. The case runs as an unprivileged user in a read-only container with no
  network and no capabilities; the cell's records, plan and logs live on the host, where
  the container cannot write, and the host stores only what it checked.
- venv, host: not sealed. The case runs as you; portbench still locks the cell, bounds what
  it prints, kills what it leaves running and checks every message, but a case could edit
  the records file directly. Use docker for cases you do not trust.
"""

from __future__ import annotations

from rich.console import Console

from ..errors import UsageError
from .base import Backend, BuildOptions, CellLaunch, PreparedEnvironment

__all__ = [
    "BACKENDS",
    "Backend",
    "BuildOptions",
    "CellLaunch",
    "PreparedEnvironment",
    "make_backend",
]

BACKENDS = ("docker", "venv", "host")


def make_backend(
    name: str,
    build: BuildOptions | None = None,
    console: Console | None = None,
    python: str | None = None,
) -> Backend:
    """The backend named ``name`` (not checked for availability): the one factory."""
    build = build or BuildOptions()
    if name == "host":
        from .host import HostBackend

        return HostBackend(python, console)
    if build.image is not None and name != "docker":
        raise UsageError(
            f"--image names a container image, and the {name} backend runs none; drop --image "
            "or use --backend docker"
        )
    if name == "venv":
        from .venv import VenvBackend

        return VenvBackend(build.find_links, console)
    if name == "docker":
        from .docker_backend import DockerBackend

        return DockerBackend(build.base, build.ca_bundle, build.find_links, console, build.image)
    raise UsageError(f"unknown backend '{name}' (known: auto, {', '.join(BACKENDS)})")
