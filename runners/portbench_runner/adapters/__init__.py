"""Framework adapters, looked up by framework name; each imports its framework lazily."""

from __future__ import annotations

from typing import Dict

from .base import Adapter, DeviceMismatch, DeviceMissing

__all__ = ["FRAMEWORKS", "Adapter", "DeviceMismatch", "DeviceMissing", "make_adapter"]

FRAMEWORKS = ("torch", "tensorflow", "jax")


def make_adapter(framework: str, flavor: str, accelerator: Dict[str, str]) -> Adapter:
    """The adapter for ``framework`` (its framework is not imported until ``load``)."""
    if framework == "torch":
        from .torch_adapter import TorchAdapter

        return TorchAdapter(flavor, accelerator)
    if framework == "tensorflow":
        from .tensorflow_adapter import TensorFlowAdapter

        return TensorFlowAdapter(flavor, accelerator)
    if framework == "jax":
        from .jax_adapter import JaxAdapter

        return JaxAdapter(flavor, accelerator)
    if framework == "python":  # the engine's own tests and benchmarks
        from .python_adapter import PythonAdapter

        return PythonAdapter(flavor, accelerator)
    raise ValueError(f"unknown framework {framework!r} (known: {', '.join(FRAMEWORKS)})")
