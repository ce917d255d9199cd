"""torch.Tensor.is_same_size: shape equality, regardless of dtype and values."""

import numpy as np

from portbench_runner.api import case, sweep


@case("same-shape", a=(3, 4), b=(3, 4), expected=True)
@case("different-shape", a=(3, 4), b=(4, 3), expected=False)
@case("different-rank", a=(12,), b=(3, 4), expected=False)
@case("empty", a=(0, 2), b=(0, 2), expected=True)
def is_same_size_values(ctx, a, b, expected):
    x = ctx.put(np.zeros(a, dtype="float32"))
    y = ctx.put(np.ones(b, dtype="float32"))
    ctx.check(ctx.measure(x.is_same_size, y) is expected, f"is_same_size{a, b} is not {expected}")


@case("dtype-ignored")
def is_same_size_dtypes(ctx):
    x = ctx.put(np.zeros((5,), dtype="float64"))
    y = ctx.put(np.zeros((5,), dtype="int32"))
    ctx.check(ctx.measure(x.is_same_size, y) is True, "dtype changed the answer")
