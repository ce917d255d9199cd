"""JAX: committed device_put, jax.default_device scope, block_until_ready on every leaf."""

from __future__ import annotations

import contextlib
import os
import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, cast

from .. import fallback, prediction
from .base import Adapter, DeviceMissing
from .rocm import check_gfx

__all__ = [
    "JaxAdapter",
    "Lowerer",
    "LoweringUnsupported",
    "lower_for",
    "lowered_text",
    "lowering_limit",
]

_BACKEND = {"cpu": "cpu", "cuda": "gpu", "rocm": "rocm", "tpu": "tpu"}
#: The platform a program is lowered for, per flavor.
_LOWERING = {"cpu": "cpu", "cuda": "cuda", "rocm": "rocm", "tpu": "tpu"}


class LoweringUnsupported(Exception):
    """This jax cannot lower for a platform other than its own backend."""


def _program(jax: Any, fn: Callable[..., Any], args: Any, kwargs: Any) -> Tuple[Any, List[Any]]:
    """``fn(*args, **kwargs)`` jitted with its arrays as the program's parameters (every
    other argument, axes and flags, stays a Python value, as the case passed it), and the
    arrays."""
    leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
    arrays = [i for i, leaf in enumerate(leaves) if isinstance(leaf, jax.Array)]

    def program(*values: Any) -> Any:
        filled = list(leaves)
        for index, value in zip(arrays, values):
            filled[index] = value
        call_args, call_kwargs = jax.tree_util.tree_unflatten(tree, filled)
        return fn(*call_args, **call_kwargs)

    return jax.jit(program), [leaves[i] for i in arrays]


def lowered_text(jax: Any, fn: Callable[..., Any], args: Any, kwargs: Any, platform: str) -> str:
    """The StableHLO text of ``fn(*args, **kwargs)`` lowered for ``platform``, which this
    machine need not have."""
    jitted, inputs = _program(jax, fn, args, kwargs)
    return cast(str, lower_for(jax, jitted, inputs, platform).as_text())


class Lowerer:
    """One call lowered for several platforms: traced once where this jax can (``trace``,
    jax >= 0.4.30), then lowered per platform; an older jax lowers each from the start."""

    def __init__(self, jax: Any, fn: Callable[..., Any], args: Any, kwargs: Any) -> None:
        self.jax = jax
        self.jitted, self.inputs = _program(jax, fn, args, kwargs)
        self._traced: Any = None
        self._trace_error: Optional[BaseException] = None

    def text(self, platform: str) -> str:
        if not hasattr(self.jitted, "trace"):
            return cast(str, lower_for(self.jax, self.jitted, self.inputs, platform).as_text())
        if self._trace_error is not None:
            raise self._trace_error
        if self._traced is None:
            try:
                self._traced = self.jitted.trace(*self.inputs)
            except Exception as exc:
                self._trace_error = exc
                raise
        return cast(str, self._traced.lower(lowering_platforms=(platform,)).as_text())


def lower_for(jax: Any, jitted: Any, inputs: List[Any], platform: str) -> Any:
    """``jitted`` lowered for ``platform`` by whichever API this jax has.

    jax >= 0.4.30 has ``trace(...).lower(lowering_platforms=...)``; from about 0.4.10 to
    then, ``lower`` takes the private ``_experimental_lowering_platform`` (0.4.13, the
    paper-nearest profile, has it); older releases lower for their own backend only, and
    asking them for another platform is :class:`LoweringUnsupported`, never a CPU program
    recorded under the platform's name."""
    if hasattr(jitted, "trace"):
        return jitted.trace(*inputs).lower(lowering_platforms=(platform,))
    local = jax.default_backend()
    own = {"gpu": "cuda"}.get(local, local)
    try:
        return jitted.lower(*inputs, _experimental_lowering_platform=platform)
    except TypeError as exc:
        if "_experimental_lowering_platform" not in str(exc):
            raise
    if platform == own:
        return jitted.lower(*inputs)
    raise LoweringUnsupported(
        f"jax {jax.__version__} lowers for its own backend ({local}) only, so it cannot say "
        f"what {platform} would do; use a profile with jax 0.4.13 or newer"
    )


#: Lowering errors that come from this machine, not from the target: a CPU jaxlib has no
#: GPU kernel descriptors (jax 0.4.x: svd, qr for cuda/rocm), and host callbacks need a
#: client of the platform they are lowered for (jax 0.10).
_LIMITS = (
    (
        re.compile(r"'NoneType' object has no attribute '\w*_descriptor'"),
        "this jaxlib has no {platform} kernels to describe the call (a CPU jaxlib lacks "
        "the GPU kernel descriptors)",
    ),
    (
        re.compile(r"platform for the specified backend \w+ is different from the lowering"),
        "a host callback is lowered only with a client of the platform, which this machine lacks",
    ),
)


def lowering_limit(exc: BaseException, platform: str) -> Optional[str]:
    """Why ``exc``, raised while lowering for ``platform``, says nothing of the target
    (a limit of the prediction), or None when it is the target refusing the call."""
    if isinstance(exc, LoweringUnsupported):
        return str(exc)
    text = f"{type(exc).__name__}: {exc}"
    for pattern, why in _LIMITS:
        if pattern.search(text):
            return why.format(platform=platform)
    return None


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
        if self.prediction is not None:
            return None  # a predicted cell lowers in looks(), once
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

    def looks(
        self,
        fn: Callable[..., Any],
        args: Tuple[Any, ...],
        kwargs: Dict[str, Any],
        platforms: Tuple[str, ...],
    ) -> Dict[str, Dict[str, Any]]:
        """A predicted cell's looks: the call traced once and lowered for each platform (a
        pass predicting several targets shares the trace and the CPU control)."""
        lowerer = Lowerer(self.jax, fn, args, kwargs)
        cpu_refusal: List[Optional[str]] = []  # the CPU control's lowering, made at most once

        def cpu_fails() -> Optional[str]:
            if not cpu_refusal:
                try:
                    lowerer.text("cpu")
                    cpu_refusal.append(None)
                except Exception as cpu_exc:
                    cpu_refusal.append(f"{type(cpu_exc).__name__}: {str(cpu_exc)[:160]}")
            return cpu_refusal[0]

        found: Dict[str, Dict[str, Any]] = {}
        for platform in platforms:
            found[platform] = self._look_at(lowerer, platform, cpu_fails)
        return found

    def _look_at(
        self, lowerer: Lowerer, platform: str, cpu_fails: Callable[[], Optional[str]]
    ) -> Dict[str, Any]:
        try:
            text = lowerer.text(platform)
        except Exception as exc:
            limit = lowering_limit(exc, platform)
            if limit is not None:
                return prediction.look_limit(limit)
            # The control, only when the target refused: a call that does not lower even
            # for the CPU (it writes a file, returns a jaxpr) says nothing of it.
            why = cpu_fails()
            if why is not None:
                return prediction.look_limit(f"the call does not lower even for the CPU ({why})")
            return prediction.look_refused(exc)
        work = fallback.jax_host_work(text)
        if work:
            return prediction.look_host_work(
                fallback.evidence("jax-lowering", platform, work, note="lowered only, not run")
            )
        return prediction.look_clean(f"lowers for {platform} with no host work")

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
