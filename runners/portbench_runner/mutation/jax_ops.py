"""Mutants of JAX arrays, made with ``jax.numpy`` outside any trace: the result stays on
the committed device of the array it replaces."""

from __future__ import annotations

from typing import Any, Optional

from .ops import LeafOps, middle

__all__ = ["JaxOps"]


class JaxOps(LeafOps):
    def __init__(self) -> None:
        import jax
        import jax.numpy as jnp

        self.jax = jax
        self.jnp = jnp

    def is_leaf(self, value: Any) -> bool:
        return isinstance(value, self.jax.Array)

    def family(self, leaf: Any) -> Optional[str]:
        jnp = self.jnp
        dtype = leaf.dtype
        if dtype == jnp.bool_:
            return "bool"
        if jnp.issubdtype(dtype, jnp.complexfloating):
            return "complex"
        if jnp.issubdtype(dtype, jnp.floating):
            return "float"
        if jnp.issubdtype(dtype, jnp.integer):
            return "int"
        return None  # PRNG key arrays and other extended dtypes

    def dtype_name(self, leaf: Any) -> str:
        return str(leaf.dtype.name)

    def size(self, leaf: Any) -> int:
        return int(leaf.size)

    def move(self, leaf: Any, rtol: float, atol: float) -> Any:
        jnp = self.jnp
        size = jnp.abs(leaf)
        # Infinities stay as they are (-inf + inf would be NaN, another mutant's change).
        delta = jnp.where(jnp.isfinite(size), rtol * size + atol, 0).astype(leaf.dtype)
        return leaf + delta

    def add_one(self, leaf: Any) -> Any:
        return leaf + self.jnp.ones_like(leaf)

    def flip_one(self, leaf: Any) -> Any:
        flat = leaf.reshape(-1)
        index = middle(flat.size)
        return flat.at[index].set(~flat[index]).reshape(leaf.shape)

    def cast(self, leaf: Any, dtype: str) -> Any:
        # float64 needs jax_enable_x64; without it JAX keeps float32 (no change, no mutant).
        return leaf.astype(dtype)

    def expand(self, leaf: Any) -> Any:
        return self.jnp.expand_dims(leaf, -1)

    def set_nan(self, leaf: Any) -> Any:
        flat = leaf.reshape(-1)
        return flat.at[middle(flat.size)].set(self.jnp.nan).reshape(leaf.shape)

    def to_numpy(self, leaf: Any) -> Any:
        import numpy as np

        array = np.asarray(leaf)
        return array.astype("float32") if array.dtype.name == "bfloat16" else array
