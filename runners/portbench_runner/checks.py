"""Result checks with dtype-aware tolerances (NumPy is imported only when a check runs)."""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from .signals import CheckFailed

__all__ = ["KIND_SCALE", "TOLERANCES", "assert_close", "assert_equal", "tolerance_for"]

#: (rtol, atol) per dtype name. Chosen so an elementwise op computed in the dtype passes
#: against a float64 NumPy reference; reductions and linear algebra pass their own.
TOLERANCES: Dict[str, Tuple[float, float]] = {
    "float16": (1e-3, 1e-3),
    "bfloat16": (1.6e-2, 1e-2),
    "float32": (1e-5, 1e-5),
    "complex64": (1e-5, 1e-5),
    "float64": (1e-7, 1e-9),
    "complex128": (1e-7, 1e-9),
}


#: How much looser than an elementwise op a kind of computation may be: a reduction
#: accumulates rounding over its inputs (and devices sum in different orders), linear
#: algebra over whole factorizations.
KIND_SCALE: Dict[str, float] = {"elementwise": 1.0, "reduction": 10.0, "linalg": 100.0}


def tolerance_for(dtype: Optional[str], kind: str = "elementwise") -> Tuple[float, float]:
    """(rtol, atol) for a dtype name and a kind of computation (see ``KIND_SCALE``);
    exact for integers, bool and unknown names."""
    if kind not in KIND_SCALE:
        raise ValueError(f"unknown kind {kind!r} (known: {', '.join(KIND_SCALE)})")
    rtol, atol = TOLERANCES["float32"] if dtype is None else TOLERANCES.get(str(dtype), (0, 0))
    scale = KIND_SCALE[kind]
    return rtol * scale, atol * scale


def _describe_mismatch(np: Any, actual: Any, expected: Any, rtol: float, atol: float) -> str:
    diff = np.abs(actual.astype("float64") - expected.astype("float64"))
    bad = ~(diff <= atol + rtol * np.abs(expected.astype("float64")))
    bad |= np.isnan(actual) != np.isnan(expected)
    count = int(bad.sum())
    worst = float(np.nanmax(diff)) if diff.size else 0.0
    return (
        f"{count} of {actual.size} elements outside rtol={rtol:g} atol={atol:g} "
        f"(largest difference {worst:.3g})"
    )


def assert_close(
    actual: Any,
    expected: Any,
    rtol: float,
    atol: float,
    what: str = "result",
    check_shape: bool = True,
) -> None:
    """Raise :class:`CheckFailed` unless two NumPy-convertible values agree."""
    import numpy as np

    actual = np.asarray(actual)
    expected = np.asarray(expected)
    if check_shape and actual.shape != expected.shape:
        raise CheckFailed(
            f"{what}: shape {actual.shape} differs from the reference's {expected.shape}",
            category="other",
        )
    if actual.dtype.kind in "biu" and expected.dtype.kind in "biu":
        if not np.array_equal(actual, expected):
            count = int((actual != expected).sum())
            raise CheckFailed(f"{what}: {count} of {actual.size} integer elements differ")
        return
    if actual.dtype.kind not in "fc":
        actual = actual.astype("float64")
    if expected.dtype.kind not in "fc":
        expected = expected.astype("float64")
    if not np.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True):
        raise CheckFailed(f"{what}: " + _describe_mismatch(np, actual, expected, rtol, atol))


def assert_equal(actual: Any, expected: Any, what: str = "result") -> None:
    """Raise :class:`CheckFailed` unless two values are exactly equal (arrays elementwise)."""
    import numpy as np

    a = np.asarray(actual)
    e = np.asarray(expected)
    if a.shape != e.shape:
        raise CheckFailed(f"{what}: shape {a.shape} differs from expected {e.shape}", "other")
    if not np.array_equal(a, e, equal_nan=a.dtype.kind in "fc" and e.dtype.kind in "fc"):
        raise CheckFailed(f"{what}: {actual!r} differs from expected {expected!r}")
