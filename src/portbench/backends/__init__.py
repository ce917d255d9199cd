"""Backends run a cell's plan somewhere: a container, a pinned venv, or this interpreter."""

from __future__ import annotations

from .base import Backend, PreparedEnvironment

__all__ = ["BACKENDS", "Backend", "PreparedEnvironment", "get_backend"]

BACKENDS = ("docker", "venv", "host")


def get_backend(name: str) -> Backend:
    """The backend named ``name`` (not checked for availability)."""
    if name == "host":
        from .host import HostBackend

        return HostBackend()
    if name == "venv":
        from .venv import VenvBackend

        return VenvBackend()
    if name == "docker":
        from .docker_backend import DockerBackend

        backend: Backend = DockerBackend()
        return backend
    from ..errors import UsageError

    raise UsageError(f"unknown backend '{name}' (known: auto, {', '.join(BACKENDS)})")
