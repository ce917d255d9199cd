"""JAX: committed device_put, jax.default_device scope, block_until_ready on every leaf."""

from __future__ import annotations

import contextlib
import os
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, cast

from .. import fallback
from .base import Adapter, DeviceMissing
from .rocm import check_gfx

__all__ = ["JaxAdapter"]

_BACKEND = {"cpu": "cpu", "cuda": "gpu", "rocm": "rocm", "tpu": "tpu"}
#: The platform a program is lowered for, per flavor.
_LOWERING = {"cpu": "cpu", "cuda": "cuda", "rocm": "rocm", "tpu": "tpu"}


def lowered_text(jax: Any, fn: Callable[..., Any], args: Any, kwargs: Any, platform: str) -> str:
    """The StableHLO text of ``fn(*args, **kwargs)`` lowered for ``platform``, which this
    machine need not have. Arrays become the program's parameters; every other argument
    (axes, flags) stays a Python value, as the case passed it."""
    leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
    arrays = [i for i, leaf in enumerate(leaves) if isinstance(leaf, jax.Array)]

    def program(*values: Any) -> Any:
        filled = list(leaves)
        for index, value in zip(arrays, values):
            filled[index] = value
        call_args, call_kwargs = jax.tree_util.tree_unflatten(tree, filled)
        return fn(*call_args, **call_kwargs)

    jitted = jax.jit(program)
    inputs = [leaves[i] for i in arrays]
    if hasattr(jitted, "trace"):  # jax >= 0.4.30: lower for any platform
        lowered = jitted.trace(*inputs).lower(lowering_platforms=(platform,))
    else:
        # Older jax lowers for the local backend only; a cell's own platform is that.
        lowered = jitted.lower(*inputs)
    return cast(str, lowered.as_text())


def _config_value(jax: Any, name: str) -> Any:
    # jax.config.read refuses flags that have a context manager in newer releases;
    # attribute access works across 0.4 to current.
    try:
        return getattr(jax.config, name)
    except AttributeError:
        return jax.config.read(name)


class JaxAdapter(Adapter):
    name = "jax"

    def load(self) -> None:
        import jax

        # float64 cases must run in float64, as NumPy users expect; the setting is
        # recorded in env.json because it changes default dtypes.
        jax.config.update("jax_enable_x64", True)
        self.jax = jax
        self.version = jax.__version__
        backend = _BACKEND.get(self.flavor)
        if backend is None:
            raise DeviceMissing(
                f"portbench runs jax on {', '.join(_BACKEND)}, not {self.flavor!r} (no JAX "
                f"plugin for {self.flavor} is pinned)"
            )
        try:
            devices = jax.devices(backend)
        except RuntimeError as exc:
            raise DeviceMissing(f"jax {self.version} has no '{backend}' backend: {exc}") from exc
        self.devices = devices
        self.device = devices[0]
        self.device_name = str(getattr(self.device, "device_kind", backend))
        if self.flavor == "rocm":  # the ROCm plugin reports the gfx target here
            check_gfx(str(getattr(self.device, "compute_capability", "") or ""), self.accelerator)
        self.check_device_name(self.device_name)

    def env(self) -> Dict[str, Any]:
        import jaxlib

        jax = self.jax
        return {
            "framework_version": self.version,
            "jaxlib_version": getattr(jaxlib, "__version__", None)
            or getattr(getattr(jaxlib, "version", None), "__version__", None),
            "device": str(self.device),
            "device_name": self.device_name,
            "device_count": len(self.devices),
            "platform_version": getattr(
                getattr(self.device, "client", None), "platform_version", None
            ),
            "precision": {
                "jax_enable_x64": bool(_config_value(jax, "jax_enable_x64")),
                "jax_default_matmul_precision": _config_value(jax, "jax_default_matmul_precision"),
                "XLA_FLAGS": os.environ.get("XLA_FLAGS"),
            },
        }

    @contextlib.contextmanager
    def case_scope(self) -> Iterator[None]:
        # Arrays created inside a case without ctx.put (jnp.zeros, jax.random) land on
        # the target device; ctx.put commits its arrays explicitly.
        with self.jax.default_device(self.device):
            yield

    def put(self, value: Any, dtype: Optional[str] = None, requires_grad: bool = False) -> Any:
        import numpy as np

        jnp = self.jax.numpy
        array = np.asarray(value)
        if dtype is not None:
            array = array.astype(jnp.dtype(dtype))
        return self.jax.device_put(array, self.device)

    def is_tensor(self, value: Any) -> bool:
        return isinstance(value, self.jax.Array)

    def leaves(self, value: Any) -> List[Any]:
        return cast(List[Any], self.jax.tree_util.tree_leaves(value))

    def sync(self, value: Any) -> None:
        # Every leaf of the pytree (tuples from svd, lu, top_k included) is waited for.
        for leaf in self.leaves(value):
            wait = getattr(leaf, "block_until_ready", None)
            if callable(wait):
                wait()

    def leaf_device(self, leaf: Any) -> Optional[str]:
        devices = leaf.devices() if callable(getattr(leaf, "devices", None)) else set()
        wrong = [d for d in devices if d.platform != self.device.platform]
        if wrong:
            return f"array on {', '.join(str(d) for d in wrong)}, not {self.device}"
        return None

    def evidence(
        self,
        fn: Callable[..., Any],
        args: Tuple[Any, ...],
        kwargs: Dict[str, Any],
        before: Any,
        repeatable: bool,
    ) -> Optional[Dict[str, Any]]:
        # The program as the target platform's compiler gets it: hybrid kernels, host
        # callbacks and host memory show there even when the output is on the device.
        # Lowering runs nothing, so stateful calls are probed too.
        platform = self.fallback_settings.get("lower_for") or _LOWERING[self.flavor]
        if platform == "cpu" and not self.fallback_settings.get("lower_for"):
            return None  # the target is the host: there is nowhere to fall back to
        probe = "jax-lowering"
        try:
            text = lowered_text(self.jax, fn, args, kwargs, platform)
        except Exception as exc:
            return fallback.unseen(
                probe, platform, f"could not lower for {platform}: {type(exc).__name__}: {exc}"
            )
        note = "lowered only, not run here" if platform != _LOWERING[self.flavor] else ""
        return fallback.evidence(
            probe,
            platform,
            fallback.jax_host_work(text),
            target_is_host=platform == "cpu",
            note=note,
        )

    def to_numpy(self, value: Any) -> Any:
        import numpy as np

        array = np.asarray(value)
        if array.dtype.name == "bfloat16":
            array = array.astype("float32")
        return array

    def compiled(self, fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        return cast(Callable[..., Any], self.jax.jit(fn, **options))

    def null_op(self, x: Any) -> Any:
        return self.jax.numpy.negative(x)
