"""The mutator a mutation run hands to ``ctx.measure``: it wraps the measured call (``raise``,
``state``) or changes its output (the value kinds), leaf by leaf through the framework's ops,
and counts what it changed, so a mutant that changed nothing is reported as not applying
rather than as a survivor."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from ..checks import TOLERANCES
from .kinds import BASELINE, DEFAULT_FLOAT_SCALE, MUTANT_KINDS
from .ops import LeafOps, NumpyOps, PythonOps, cast_target

__all__ = ["MutantRaised", "Mutator", "framework_ops"]

_MAX_DEPTH = 20
_NOTES = 3


class MutantRaised(RuntimeError):
    """The ``raise`` mutant: the measured call raised instead of returning."""


def framework_ops(framework: str) -> Optional[LeafOps]:
    """The framework's own leaf ops (None for frameworks without tensors: the python test
    framework)."""
    if framework == "torch":
        from .torch_ops import TorchOps

        return TorchOps()
    if framework == "jax":
        from .jax_ops import JaxOps

        return JaxOps()
    if framework == "tensorflow":
        from .tf_ops import TensorflowOps

        return TensorflowOps()
    return None


def _tolerance(dtype: str) -> Tuple[float, float]:
    # A dtype the table does not know (float8, Python's float as float64) moves as float16
    # does: a move rounding swallows is found unchanged and the mutant does not apply.
    return TOLERANCES.get(dtype, TOLERANCES["float16"])


class Mutator:
    """One mutant of one case run. ``changed`` counts the leaves (or state tensors) it
    changed; ``seen`` the array leaves it looked at."""

    def __init__(
        self, kind: str, framework: Optional[LeafOps], scale: float = DEFAULT_FLOAT_SCALE
    ) -> None:
        if kind not in MUTANT_KINDS and kind != BASELINE:
            raise ValueError(f"unknown mutant kind {kind!r} (known: {', '.join(MUTANT_KINDS)})")
        self.kind = kind
        self.scale = scale
        self.framework = framework
        self.ops: List[LeafOps] = [o for o in (framework, NumpyOps(), PythonOps()) if o]
        self.changed = 0
        self.seen = 0
        self.notes: List[str] = []

    # -- the call ------------------------------------------------------------------------------
    def call(
        self, fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]
    ) -> Callable[[], Any]:
        """The measured call as this mutant makes it."""
        if self.kind == "raise":

            def raising() -> Any:
                fn(*args, **kwargs)
                self.changed += 1
                raise MutantRaised("portbench mutant: the measured call raised")

            return raising
        if self.kind == "state":

            def stateful() -> Any:
                output = fn(*args, **kwargs)
                self.move_state(fn, args, kwargs)
                return output

            return stateful
        return lambda: fn(*args, **kwargs)

    def move_state(
        self, fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]
    ) -> None:
        ops = self.framework
        state_of = getattr(ops, "state_of", None)
        if ops is None or state_of is None:
            self._note("this framework has no mutable state a mutant can move")
            return
        try:
            touched = state_of(fn, args, kwargs)
            for item in touched:
                rtol, atol = _tolerance(ops.dtype_name(item))
                ops.move_in_place(item, rtol * self.scale, atol * self.scale)  # type: ignore[attr-defined]
                self.changed += 1
        except Exception as exc:  # a state we cannot move: reported, never a kill
            self._note(f"state could not be moved ({type(exc).__name__}: {str(exc)[:120]})")
        if not self.changed:
            self._note("the call was given or bound to no float tensor, module or optimizer")

    # -- the output --------------------------------------------------------------------------
    def output(self, value: Any) -> Any:
        """``value`` with this mutant applied to every leaf it applies to."""
        if self.kind in (BASELINE, "raise", "state"):
            return value
        return self._walk(value, 0)

    def _walk(self, value: Any, depth: int) -> Any:
        for ops in self.ops:
            if ops.is_leaf(value):
                return self._leaf(ops, value)
        if depth > _MAX_DEPTH:
            return value
        if isinstance(value, dict):
            items = {key: self._walk(item, depth + 1) for key, item in value.items()}
            try:
                return type(value)(items)
            except Exception:
                return items
        if isinstance(value, (tuple, list)):
            parts = [self._walk(item, depth + 1) for item in value]
            if hasattr(value, "_fields"):  # a namedtuple
                return type(value)(*parts)
            try:  # list, tuple, torch's return types (structseq)
                return type(value)(parts)
            except Exception:
                return tuple(parts)
        return value

    def _leaf(self, ops: LeafOps, leaf: Any) -> Any:
        try:
            family = ops.family(leaf)
            if family is None:
                return leaf
            self.seen += 1
            mutated = self._mutated(ops, leaf, family)
            if mutated is not leaf and self._differs(ops, leaf, mutated):
                self.changed += 1
                return mutated
        except Exception as exc:  # a leaf this mutant cannot change stays as it was
            self._note(f"a {type(leaf).__name__} was left as it was ({type(exc).__name__})")
        return leaf

    def _mutated(self, ops: LeafOps, leaf: Any, family: str) -> Any:
        kind = self.kind
        size = ops.size(leaf)
        if kind == "float" and family in ("float", "complex"):
            rtol, atol = _tolerance(ops.dtype_name(leaf))
            return ops.move(leaf, rtol * self.scale, atol * self.scale)
        if kind == "off_by_one" and family == "int":
            return ops.add_one(leaf)
        if kind == "off_by_one" and family == "bool" and size:
            return ops.flip_one(leaf)
        if kind == "dtype":
            return ops.cast(leaf, cast_target(ops.dtype_name(leaf), family))
        if kind == "shape":
            return ops.expand(leaf)
        if kind == "nan" and family in ("float", "complex") and size:
            return ops.set_nan(leaf)
        return leaf

    def _differs(self, ops: LeafOps, leaf: Any, mutated: Any) -> bool:
        """Whether the mutant changed anything a check could see (an ``inf`` moved is
        ``inf``; float64 without x64 in JAX stays float32)."""
        import numpy as np

        if self.kind == "dtype":
            return ops.dtype_name(mutated) != ops.dtype_name(leaf)
        before, after = np.asarray(ops.to_numpy(leaf)), np.asarray(ops.to_numpy(mutated))
        if before.shape != after.shape:
            return True
        return not np.array_equal(before, after, equal_nan=before.dtype.kind in "fc")

    def _note(self, text: str) -> None:
        if len(self.notes) < _NOTES and text not in self.notes:
            self.notes.append(text)

    @property
    def why_not(self) -> str:
        """Why the mutant changed nothing, in a few words."""
        if self.notes:
            return "; ".join(self.notes)
        if not self.seen:
            return "the output holds no array or number this mutant changes"
        return f"no element of the output's {self.seen} array(s) is one this mutant changes"
