"""The object a case receives: device, placement, measured call, checks, seeded RNG."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, Iterator, Optional, Tuple, cast

from . import checks, fallback
from .adapters.base import Adapter
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


def _fallback_summary(evidence: Dict[str, Any]) -> str:
    items = [f"{item['kind']} {item['what']}" for item in evidence.get("host_work", [])[:3]]
    return (
        f"work ran on the host ({evidence.get('probe')} for {evidence.get('platform')}): "
        + "; ".join(items)
    )


class Context:
    """What one case may use. Stages: ``setup`` until ``measure``, ``call`` inside it, then ``check``."""

    def __init__(
        self,
        adapter: Adapter,
        case_id: str,
        seed: int,
        profile: str,
        accelerator_id: str,
        timing: Optional[Dict[str, float]] = None,
        on_stage: Optional[Callable[[str], None]] = None,
    ) -> None:
        self._adapter = adapter
        # Told of each stage change, so a crash is recorded at the stage it happened in.
        self._on_stage = on_stage
        self.case_id = case_id
        self.seed = seed
        self.profile = profile
        self.accelerator = accelerator_id
        self._timing_settings = timing
        self._stage = "setup"
        self.timing: Optional[Dict[str, Any]] = None
        #: Where the measured call's work ran (``fallback.evidence``), when a probe looked.
        self.evidence: Optional[Dict[str, Any]] = None
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
        return output

    def _probe(self, look: Callable[[], Any]) -> Any:
        """A probe's answer; a probe that breaks is recorded as unseen, never fails the case."""
        try:
            return look()
        except Exception as exc:
            return fallback.unseen(
                self.framework, self.flavor, f"the probe raised {type(exc).__name__}: {exc}"
            )

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
    ) -> None:
        """Compare with a reference within ``dtype``'s tolerance (see ``checks.TOLERANCES``)."""
        default_rtol, default_atol = checks.tolerance_for(dtype)
        checks.assert_close(
            self.to_numpy(actual),
            expected,
            default_rtol if rtol is None else rtol,
            default_atol if atol is None else atol,
            what=what,
            check_shape=check_shape,
        )

    def check_equal(self, actual: Any, expected: Any, what: str = "result") -> None:
        """Exact equality (integers, booleans, shapes, strings)."""
        checks.assert_equal(self.to_numpy(actual), expected, what=what)

    def check(self, condition: Any, message: str, category: str = "precision") -> None:
        """Fail the case at the check stage with ``message`` unless ``condition`` holds."""
        if not condition:
            raise CheckFailed(message, category=category)
