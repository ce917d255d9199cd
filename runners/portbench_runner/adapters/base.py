"""What every framework adapter provides to the worker and to cases."""

from __future__ import annotations

import contextlib
import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from ..contract import PredictionSettings

__all__ = ["DTYPE_NAMES", "Adapter", "DeviceMismatch", "DeviceMissing", "iter_leaves"]

#: dtype names a case may pass to ``ctx.put``; each adapter maps them to its own dtypes.
#: The torch and TensorFlow censuses try each of them, in this order, per entry.
DTYPE_NAMES = (
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)


class DeviceMissing(Exception):
    """The cell's accelerator is not visible to the framework in this process."""


class DeviceMismatch(Exception):
    """The hardware found is not the one the accelerator id names."""


def iter_leaves(value: Any, is_leaf: Callable[[Any], bool]) -> Iterator[Any]:
    """Yield the leaves of nested lists, tuples (named ones too), dicts and sets."""
    if is_leaf(value):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from iter_leaves(item, is_leaf)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from iter_leaves(item, is_leaf)


class Adapter:
    """Device selection, placement, synchronization and conversion for one framework.

    Subclasses import their framework in :meth:`load` only, so the engine never
    imports a framework it is not running.
    """

    name = "base"

    def __init__(self, flavor: str, accelerator: Dict[str, str]) -> None:
        self.flavor = flavor
        self.accelerator = accelerator
        self.device: Any = None
        self.device_name = ""
        self.version = ""
        #: The plan's fallback settings (``FallbackSettings.to_json``), set by the worker.
        self.fallback_settings: Dict[str, Any] = {"mode": "mark", "soft_placement": False}
        #: A predicted cell's settings (the plan's ``prediction``), set by the worker; None
        #: in an observed cell.
        self.prediction: Optional[PredictionSettings] = None

    # -- lifecycle -------------------------------------------------------------
    def load(self) -> None:
        """Import the framework, select the target device and check it matches the id."""
        raise NotImplementedError

    def check_device_name(self, found: str) -> None:
        """Raise :class:`DeviceMismatch` when ``found`` does not match the accelerator id."""
        pattern = self.accelerator.get("device_match") or ""
        if pattern and not re.search(pattern, found, re.IGNORECASE):
            accelerator_id = self.accelerator.get("id", "?")
            raise DeviceMismatch(
                f"accelerator '{accelerator_id}' expects a device matching '{pattern}', "
                f"but this machine has '{found}'; run the cell with the id of the hardware "
                f"present (or the generic '{self.accelerator.get('generic', 'gpu')}')"
            )

    def env(self) -> Dict[str, object]:
        """Framework facts for env.json: versions, device, precision settings."""
        raise NotImplementedError

    # -- what cases use ---------------------------------------------------------
    @contextlib.contextmanager
    def case_scope(self) -> Iterator[None]:
        """Force placement on the target device for the duration of one case."""
        yield

    def put(self, value: Any, dtype: Optional[str] = None, requires_grad: bool = False) -> Any:
        raise NotImplementedError

    def is_tensor(self, value: Any) -> bool:
        raise NotImplementedError

    def sync(self, value: Any) -> None:
        """Wait until every tensor in ``value`` (nested structures too) is computed."""
        raise NotImplementedError

    def leaf_device(self, leaf: Any) -> Optional[str]:
        """A description of where ``leaf`` lives, or None if it is on the target device."""
        raise NotImplementedError

    def leaves(self, value: Any) -> List[Any]:
        """The framework values inside ``value`` (nested containers walked)."""
        return list(iter_leaves(value, self.is_tensor))

    def placement_problems(self, value: Any) -> List[str]:
        """Descriptions of the output leaves that are not on the target device."""
        problems = []
        for leaf in self.leaves(value):
            if self.is_tensor(leaf):
                where = self.leaf_device(leaf)
                if where is not None:
                    problems.append(where)
        return problems

    def to_numpy(self, value: Any) -> Any:
        raise NotImplementedError

    # -- where the work ran ---------------------------------------------------------
    def before_call(self) -> Any:
        """State read just before the measured call (counters), given to :meth:`evidence`."""
        return None

    def evidence(
        self,
        fn: Callable[..., Any],
        args: Tuple[Any, ...],
        kwargs: Dict[str, object],
        before: Any,
        repeatable: bool,
    ) -> Optional[Dict[str, object]]:
        """Evidence of where the measured call's work ran (``fallback.evidence``), or None
        where this framework and device have no probe. Called after the measured call;
        ``repeatable`` says whether ``fn`` may be called once more (it is False for
        calls that change state)."""
        return None

    def looks(
        self,
        fn: Callable[..., Any],
        args: Tuple[Any, ...],
        kwargs: Dict[str, Any],
        platforms: Tuple[str, ...],
    ) -> Dict[str, Dict[str, Any]]:
        """A predicted cell's look at each platform for the measured call (``prediction.look_*``),
        made after the case ended, by platform; an adapter that can share work between
        platforms (JAX's trace) overrides this, one that cannot overrides ``look_for``."""
        return {p: self.look_for(fn, args, kwargs, p) for p in platforms}

    def look_for(
        self, fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any], platform: str
    ) -> Dict[str, Any]:
        """A predicted cell's look at ``platform`` for the measured call."""
        return {"status": "limit", "why": f"{self.name} has no way to predict this target"}

    def compiled(self, fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        """The framework's compiler applied to ``fn`` (jit / XLA tf.function / torch.compile)."""
        raise NotImplementedError

    def null_inputs(self) -> Any:
        """A one-element tensor on the device, for the dispatch-floor measurement."""
        return self.put([1.0], dtype="float32")

    def null_op(self, x: Any) -> Any:
        """The cheapest real op of the framework (negation), for the dispatch floor."""
        raise NotImplementedError
