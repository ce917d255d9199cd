"""How a mutant changes one array, per framework: the interface and NumPy's version.

Each framework's ops (``torch_ops``, ``jax_ops``, ``tf_ops``) change a leaf with the
framework's own operations, so the mutated value keeps its device, its dtype where the
mutant keeps it, and (torch) its autograd graph. Only the framework under test and NumPy
(which every framework brings) are imported, lazily.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Optional

__all__ = ["CAST_TO", "LeafOps", "NumpyOps", "PythonOps", "middle"]

#: The dtype the ``dtype`` mutant casts to, by dtype name (others go to int64 or float32).
CAST_TO: Dict[str, str] = {
    "float16": "float32",
    "bfloat16": "float32",
    "float32": "float64",
    "float64": "float32",
    "complex64": "complex128",
    "complex128": "complex64",
    "int32": "int64",
    "int64": "int32",
    "bool": "int32",
}


def middle(size: int) -> int:
    """The flat index a one-element mutant changes: the middle, not a corner a check
    might skip (``x[1:-1]`` interiors are common)."""
    return size // 2


def cast_target(dtype: str, family: str) -> str:
    if dtype in CAST_TO:
        return CAST_TO[dtype]
    return "float32" if family in ("float", "complex") else "int64"


class LeafOps:
    """One framework's changes to a leaf. ``family`` is ``float``, ``complex``, ``int``,
    ``bool`` or None (not an array this mutant understands)."""

    def is_leaf(self, value: Any) -> bool:
        raise NotImplementedError

    def family(self, leaf: Any) -> Optional[str]:
        raise NotImplementedError

    def dtype_name(self, leaf: Any) -> str:
        raise NotImplementedError

    def size(self, leaf: Any) -> int:
        raise NotImplementedError

    def move(self, leaf: Any, rtol: float, atol: float) -> Any:
        """``leaf + rtol*|leaf| + atol``, in the leaf's dtype."""
        raise NotImplementedError

    def add_one(self, leaf: Any) -> Any:
        raise NotImplementedError

    def flip_one(self, leaf: Any) -> Any:
        """A boolean leaf with its middle element negated."""
        raise NotImplementedError

    def cast(self, leaf: Any, dtype: str) -> Any:
        raise NotImplementedError

    def expand(self, leaf: Any) -> Any:
        """The leaf with a trailing axis of length 1."""
        raise NotImplementedError

    def set_nan(self, leaf: Any) -> Any:
        """A float leaf with its middle element NaN."""
        raise NotImplementedError

    def to_numpy(self, leaf: Any) -> Any:
        raise NotImplementedError


class NumpyOps(LeafOps):
    """NumPy arrays and scalars (outputs some cases compute on the host)."""

    def __init__(self) -> None:
        import numpy

        self.np = numpy

    def is_leaf(self, value: Any) -> bool:
        return isinstance(value, (self.np.ndarray, self.np.generic))

    def family(self, leaf: Any) -> Optional[str]:
        kind = leaf.dtype.kind
        return {"f": "float", "c": "complex", "i": "int", "u": "int", "b": "bool"}.get(kind)

    def dtype_name(self, leaf: Any) -> str:
        return str(leaf.dtype.name)

    def size(self, leaf: Any) -> int:
        return int(leaf.size)

    def move(self, leaf: Any, rtol: float, atol: float) -> Any:
        np = self.np
        with np.errstate(over="ignore", invalid="ignore"):
            size = np.abs(leaf)
            delta = np.where(np.isfinite(size), rtol * size + atol, 0)
            return (leaf + delta).astype(leaf.dtype)

    def add_one(self, leaf: Any) -> Any:
        with self.np.errstate(over="ignore"):
            return (leaf + 1).astype(leaf.dtype)

    def flip_one(self, leaf: Any) -> Any:
        out = self.np.array(leaf, copy=True)
        flat = out.reshape(-1)
        flat[middle(flat.size)] = not flat[middle(flat.size)]
        return flat.reshape(out.shape)

    def cast(self, leaf: Any, dtype: str) -> Any:
        return self.np.asarray(leaf).astype(dtype)

    def expand(self, leaf: Any) -> Any:
        return self.np.expand_dims(self.np.asarray(leaf), -1)

    def set_nan(self, leaf: Any) -> Any:
        out = self.np.array(leaf, copy=True)
        flat = out.reshape(-1)
        flat[middle(flat.size)] = self.np.nan
        return flat.reshape(out.shape)

    def to_numpy(self, leaf: Any) -> Any:
        return self.np.asarray(leaf)


class PythonOps(LeafOps):
    """Plain Python numbers (``.item()`` results, counts): values only, no dtype or shape."""

    def is_leaf(self, value: Any) -> bool:
        return isinstance(value, (bool, int, float, complex))

    def family(self, leaf: Any) -> Optional[str]:
        if isinstance(leaf, bool):
            return "bool"
        return {int: "int", float: "float", complex: "complex"}.get(type(leaf))

    def dtype_name(self, leaf: Any) -> str:
        return "float64" if isinstance(leaf, (float, complex)) else type(leaf).__name__

    def size(self, leaf: Any) -> int:
        return 1

    def move(self, leaf: Any, rtol: float, atol: float) -> Any:
        size = abs(leaf)
        return leaf + (rtol * size + atol) if math.isfinite(size) else leaf

    def add_one(self, leaf: Any) -> Any:
        return leaf + 1

    def flip_one(self, leaf: Any) -> Any:
        return not leaf

    def cast(self, leaf: Any, dtype: str) -> Any:
        return leaf  # a Python number has no dtype to change: the mutant does not apply

    def expand(self, leaf: Any) -> Any:
        return leaf

    def set_nan(self, leaf: Any) -> Any:
        return float("nan") if isinstance(leaf, float) else complex("nan+nanj")

    def to_numpy(self, leaf: Any) -> Any:
        import numpy

        return numpy.asarray(leaf)
