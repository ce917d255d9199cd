"""The object a case receives: device, placement, measured call, checks, seeded RNG."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, cast

from . import checks, fallback, prediction
from .adapters.base import Adapter
from .contract import TimingSettings
from .signals import CaseBug, CheckFailed, FallbackDetected, SkipCase, StageFailure
from .timing import time_call

__all__ = ["Context", "parse_version"]


def parse_version(text: str) -> Tuple[int, ...]:
    """``'2.11.0+cu130'`` -> ``(2, 11, 0)``; stops at the first non-numeric part."""
    parts = []
    for piece in text.split("+", maxsplit=1)[0].split("."):
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def _fallback_summary(evidence: Dict[str, object]) -> str:
    work = evidence.get("host_work")
    listed = work[:3] if isinstance(work, list) else []
    items = [f"{item.get('kind')} {item.get('what')}" for item in listed if isinstance(item, dict)]
    return (
        f"work ran on the host ({evidence.get('probe')} for {evidence.get('platform')}): "
        + "; ".join(items)
    )


def _dtype_name(dtype: Any) -> str:
    """``torch.bfloat16`` / jax's ``dtype('bfloat16')`` / TF's ``tf.bfloat16`` -> ``bfloat16``."""
    name = getattr(dtype, "name", None)
    return name if isinstance(name, str) else str(dtype).rsplit(".", 1)[-1]


class Context:
    """What one case may use. Stages: ``setup`` until ``measure``, ``call`` inside it, then ``check``."""

    def __init__(
        self,
        adapter: Adapter,
        case_id: str,
        seed: int,
        profile: str,
        accelerator_id: str,
        timing: Optional[TimingSettings] = None,
        on_stage: Optional[Callable[[str], None]] = None,
        keep_output: bool = False,
        cold_only: bool = False,
    ) -> None:
        self._adapter = adapter
        # The differential check (differential.py) needs the measured output as host
        # arrays; only then is it copied off the device, outside the timed call.
        self._keep_output = keep_output
        # The CPU twin of an accelerator case is run for its result, not its timing.
        self._cold_only = cold_only
        self.output_leaves: Optional[List[Any]] = None
        self.output_dtypes: Optional[List[str]] = None
        self.output_note = ""
        self.tolerance: Optional[Tuple[float, float]] = None
        self.comparable = True
        self.not_comparable_reason = ""
        # Told of each stage change, so a crash is recorded at the stage it happened in.
        self._on_stage = on_stage
        self.case_id = case_id
        self.seed = seed
        self.profile = profile
        self.accelerator = accelerator_id
        self._timing_settings = timing
        self._stage = "setup"
        self.timing: Optional[Dict[str, object]] = None
        #: Where the measured call's work ran (``fallback.evidence``), when a probe looked.
        self.evidence: Optional[Dict[str, object]] = None
        # A predicted cell's looks at its platforms, made once the case has ended (a look
        # may call the function again, which must not change what the case checks).
        self._pending_looks: Optional[Callable[[], Any]] = None
        self._looks_found: Optional[Dict[str, Dict[str, Any]]] = None
        self._look_platforms: Tuple[str, ...] = ()
        self._rng: Any = None

    @property
    def stage(self) -> str:
        """``setup`` until ``measure``, ``call`` inside it, ``check`` after it."""
        return self._stage

    @stage.setter
    def stage(self, value: str) -> None:
        self._stage = value
        if self._on_stage is not None:
            self._on_stage(value)

    # -- facts ------------------------------------------------------------------
    @property
    def framework(self) -> str:
        return self._adapter.name

    @property
    def flavor(self) -> str:
        """``cpu``, ``cuda`` or ``tpu``."""
        return self._adapter.flavor

    @property
    def device(self) -> Any:
        """The framework's own device object (torch.device, jax Device, TF device string)."""
        return self._adapter.device

    @property
    def version(self) -> str:
        return self._adapter.version

    def version_at_least(self, version: str) -> bool:
        return parse_version(self.version) >= parse_version(version)

    @property
    def rng(self) -> Any:
        """A NumPy ``Generator`` seeded from the plan's seed and this case id."""
        if self._rng is None:
            import numpy as np

            self._rng = np.random.default_rng(self.seed)
        return self._rng

    # -- outcomes ---------------------------------------------------------------
    def skip(self, reason: str) -> None:
        """End the case as ``skip``: it does not apply to this profile or device."""
        raise SkipCase(reason)

    def require(self, dotted: str) -> Any:
        """Resolve ``torch.nn.Foo``-style names; skip (untested) if this version lacks it."""
        import importlib

        module_name, _, rest = dotted.partition(".")
        obj: Any = importlib.import_module(module_name)
        path = module_name
        for part in rest.split(".") if rest else []:
            path = f"{path}.{part}"
            try:
                obj = getattr(obj, part)
            except AttributeError:
                try:
                    obj = importlib.import_module(path)
                except ImportError:
                    raise SkipCase(
                        f"{dotted} does not exist in {self.framework} {self.version}"
                    ) from None
        return obj

    # -- inputs -----------------------------------------------------------------
    def put(self, value: Any, dtype: Optional[str] = None, requires_grad: bool = False) -> Any:
        """Place ``value`` (NumPy array, scalar, list or tensor) on the target device.

        A failure here is a ``setup`` failure of the framework on this device
        (for example a dtype the device lacks), never a harness error.
        """
        try:
            return self._adapter.put(value, dtype=dtype, requires_grad=requires_grad)
        except Exception as exc:
            raise StageFailure("setup", exc) from exc

    @contextlib.contextmanager
    def on_device(self) -> Iterator[None]:
        """A scope where framework calls that create tensors place them on the device."""
        with self._adapter.case_scope():
            yield

    # -- the measured call --------------------------------------------------------
    def measure(self, fn: Callable[..., Any], *args: Any, warm: bool = True, **kwargs: Any) -> Any:
        """Call ``fn(*args, **kwargs)`` cold, then warm if ``warm``; return the cold output.

        Pass ``warm=False`` for calls that change state (an optimizer step, an
        in-place op), so the checked output comes from exactly one call.
        """
        if self.timing is not None:
            raise CaseBug("ctx.measure was called twice in one case; time one call per case")
        self.stage = "call"
        adapter = self._adapter
        before = self._probe(adapter.before_call)
        settings = adapter.prediction
        # A predicted cell's timings say nothing of the target: the cold call only.
        warm = warm and not self._cold_only and settings is None
        try:
            output, timing = time_call(
                lambda: fn(*args, **kwargs), adapter.sync, self._timing_settings, warm=warm
            )
        except Exception as exc:
            raise StageFailure("call", exc) from exc
        self.timing = timing
        # Outside the timed region: a probe may lower or re-run the call. It looks before
        # the output check, so a case failed for its output's device keeps the evidence.
        self.evidence = self._probe(lambda: adapter.evidence(fn, args, kwargs, before, warm))
        if settings is not None:
            platforms = self._look_platforms = settings.platforms
            self._pending_looks = lambda: adapter.looks(fn, args, kwargs, platforms)
        problems = adapter.placement_problems(output)
        if problems:
            raise FallbackDetected("; ".join(problems[:3]))
        if (
            self.evidence is not None
            and self.evidence.get("fallback") is True
            and adapter.fallback_settings.get("mode") == "fail"
        ):
            raise FallbackDetected(_fallback_summary(self.evidence))
        self.stage = "check"
        if self._keep_output:
            self._keep(output)
        return output

    def _probe(self, look: Callable[[], Any]) -> Any:
        """A probe's answer; a probe that breaks is recorded as unseen, never fails the case."""
        try:
            return look()
        except Exception as exc:
            return fallback.unseen(
                self.framework, self.flavor, f"the probe raised {type(exc).__name__}: {exc}"
            )

    @property
    def looks(self) -> Optional[Dict[str, Dict[str, Any]]]:
        """A predicted cell's look at each of its platforms (``prediction.look_*``), made on
        first use (after the case ended); None when the case made no measured call. A look
        that breaks is a limit of the prediction, never the target's failure."""
        if self._pending_looks is not None:
            looks, self._pending_looks = self._pending_looks, None
            platforms = self._look_platforms
            try:
                found = looks()
            except Exception as exc:
                broken = prediction.look_limit(f"the look raised {type(exc).__name__}: {exc}")
                found = dict.fromkeys(platforms, broken)
            if not isinstance(found, dict):
                found = {}
            nothing = prediction.look_limit("the look found nothing")
            self._looks_found = {
                p: found[p] if isinstance(found.get(p), dict) else nothing for p in platforms
            }
        return self._looks_found

    def _keep(self, output: Any) -> None:
        leaves = []
        dtypes = []
        for leaf in self._adapter.leaves(output):
            if getattr(leaf, "dtype", None) is None:  # a module, not an array: nothing to compare
                self.output_note = f"an output of type {type(leaf).__name__} has no array value"
                self.output_leaves = None
                return
            try:
                leaves.append(self._adapter.to_numpy(leaf))
            except Exception as exc:  # a module or opaque value: not comparable, not a failure
                self.output_note = (
                    f"an output of type {type(leaf).__name__} has no array value "
                    f"({type(exc).__name__})"
                )
                self.output_leaves = None
                return
            dtypes.append(_dtype_name(getattr(leaf, "dtype", "")))
        self.output_dtypes = dtypes
        if not leaves and not self._adapter.is_tensor(output):
            try:  # plain Python numbers and NumPy arrays compare too
                import numpy as np

                leaves = [np.asarray(output)]
            except Exception:
                leaves = []
        self.output_leaves = leaves

    def not_comparable(self, reason: str) -> None:
        """This case's output may differ between devices by design (device random
        generators): the CPU twin still runs, but its output is not compared."""
        self.comparable = False
        self.not_comparable_reason = reason

    def in_mode(self, mode: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` as run in ``mode``: ``eager`` as it is; ``compiled`` (and its aliases
        ``jit``, ``xla``) through :meth:`compiled`; ``graph`` through :meth:`graph`. Lets a
        sweep name its modes (``mode=["eager", "compiled"]``) without a branch per case."""
        if mode == "eager":
            return fn
        if mode in ("compiled", "jit", "xla"):
            return self.compiled(fn)
        if mode == "graph":
            return self.graph(fn)
        raise CaseBug(f"unknown mode {mode!r} (known: eager, compiled, jit, xla, graph)")

    def sync(self, value: Any) -> None:
        self._adapter.sync(value)

    def compiled(self, fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        """``jax.jit`` / ``tf.function(jit_compile=True)`` / ``torch.compile`` of ``fn``.

        Skips the case where the profile's framework has no such compiler.
        """
        return self._adapter.compiled(fn, **options)

    def graph(self, fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        """TensorFlow only: ``tf.function`` without XLA."""
        graph = getattr(self._adapter, "graph", None)
        if graph is None:
            raise CaseBug(f"ctx.graph is TensorFlow only, not {self.framework}")
        return cast(Callable[..., Any], graph(fn, **options))

    # -- checks -----------------------------------------------------------------
    def to_numpy(self, value: Any) -> Any:
        return self._adapter.to_numpy(value)

    def check_close(
        self,
        actual: Any,
        expected: Any,
        dtype: Optional[str] = None,
        rtol: Optional[float] = None,
        atol: Optional[float] = None,
        what: str = "result",
        check_shape: bool = True,
        kind: str = "elementwise",
    ) -> None:
        """Compare with a reference within ``dtype``'s tolerance for a ``kind`` of
        computation (``elementwise``, ``reduction``, ``linalg``; see ``checks``)."""
        try:
            default_rtol, default_atol = checks.tolerance_for(dtype, kind)
        except ValueError as exc:
            raise CaseBug(str(exc)) from None
        rtol = default_rtol if rtol is None else rtol
        atol = default_atol if atol is None else atol
        # The loosest tolerance the case accepted is what its CPU twin is held to.
        if self.tolerance is None:
            self.tolerance = (rtol, atol)
        else:
            self.tolerance = (max(self.tolerance[0], rtol), max(self.tolerance[1], atol))
        checks.assert_close(
            self.to_numpy(actual), expected, rtol, atol, what=what, check_shape=check_shape
        )

    def check_equal(self, actual: Any, expected: Any, what: str = "result") -> None:
        """Exact equality (integers, booleans, shapes, strings)."""
        checks.assert_equal(self.to_numpy(actual), expected, what=what)

    def check(self, condition: Any, message: str, category: str = "precision") -> None:
        """Fail the case at the check stage with ``message`` unless ``condition`` holds."""
        if not condition:
            raise CheckFailed(message, category=category)
