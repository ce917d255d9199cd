"""Mutants of TensorFlow tensors, made with TensorFlow's own operations inside the case's
device scope (the worker runs every case body in it)."""

from __future__ import annotations

from typing import Any, Optional

from .ops import LeafOps, middle

__all__ = ["TensorflowOps"]


class TensorflowOps(LeafOps):
    def __init__(self) -> None:
        import tensorflow as tf

        self.tf = tf

    def is_leaf(self, value: Any) -> bool:
        return isinstance(value, (self.tf.Tensor, self.tf.Variable))

    def family(self, leaf: Any) -> Optional[str]:
        dtype = leaf.dtype
        if dtype.is_bool:
            return "bool"
        if dtype.is_complex:
            return "complex"
        if dtype.is_floating:
            return "float"
        if dtype.is_integer:
            return "int"
        return None  # strings, resources, variants

    def dtype_name(self, leaf: Any) -> str:
        return str(leaf.dtype.name)

    def size(self, leaf: Any) -> int:
        return int(self.tf.size(leaf).numpy())

    def move(self, leaf: Any, rtol: float, atol: float) -> Any:
        tf = self.tf
        size = tf.abs(leaf)
        # Infinities stay as they are (-inf + inf would be NaN, another mutant's change).
        moved = tf.where(tf.math.is_finite(size), rtol * size + atol, tf.zeros_like(size))
        return tf.stop_gradient(tf.cast(moved, leaf.dtype)) + leaf

    def add_one(self, leaf: Any) -> Any:
        return leaf + self.tf.ones_like(leaf)

    def _one_set(self, leaf: Any, value: Any) -> Any:
        tf = self.tf
        flat = tf.reshape(leaf, [-1])
        index = middle(int(tf.size(flat).numpy()))
        changed = tf.tensor_scatter_nd_update(flat, [[index]], tf.reshape(value, [1]))
        return tf.reshape(changed, tf.shape(leaf))

    def flip_one(self, leaf: Any) -> Any:
        tf = self.tf
        flat = tf.reshape(leaf, [-1])
        return self._one_set(leaf, tf.logical_not(flat[middle(int(tf.size(flat).numpy()))]))

    def cast(self, leaf: Any, dtype: str) -> Any:
        return self.tf.cast(leaf, getattr(self.tf, dtype))

    def expand(self, leaf: Any) -> Any:
        return self.tf.expand_dims(leaf, -1)

    def set_nan(self, leaf: Any) -> Any:
        return self._one_set(leaf, self.tf.constant(float("nan"), dtype=leaf.dtype))

    def to_numpy(self, leaf: Any) -> Any:
        import numpy as np

        tf = self.tf
        if leaf.dtype == tf.bfloat16:
            leaf = tf.cast(leaf, tf.float32)
        return np.asarray(leaf.numpy())

    # -- state ---------------------------------------------------------------------------
    def state_of(self, fn: Any, args: Any, kwargs: Any) -> list:  # type: ignore[type-arg]
        """The float variables a stateful call may have changed: those it was given or
        bound to, a module's or optimizer's variables."""
        tf = self.tf
        found = []
        owner = getattr(fn, "__self__", None)
        for item in [owner, *args, *kwargs.values()]:
            if isinstance(item, tf.Variable):
                found.append(item)
            elif isinstance(item, (list, tuple)):
                found.extend(x for x in item if isinstance(x, tf.Variable))
            elif isinstance(item, tf.Module):
                found.extend(item.variables)
        return [v for v in found if v.dtype.is_floating]

    def move_in_place(self, variable: Any, rtol: float, atol: float) -> None:
        tf = self.tf
        variable.assign_add(tf.cast(rtol * tf.abs(variable) + atol, variable.dtype))
