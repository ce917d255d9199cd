"""torch.lt: elementwise less-than across dtypes, broadcasting, scalars, nan."""

import numpy as np
from _torchhelp import draw, placed

from portbench_runner.api import case


@case("float32", dtype="float32")
@case("float64", dtype="float64")
@case("int64", dtype="int64")
@case("bfloat16", dtype="bfloat16")
@case("large", dtype="float32", shape=(1000, 1000))
def lt_values(ctx, dtype, shape=(64, 64)):
    import torch

    a, a_h = placed(ctx, draw(ctx, shape, dtype, -5, 5), dtype)
    b, b_h = placed(ctx, draw(ctx, shape, dtype, -5, 5), dtype)
    out = ctx.measure(torch.lt, a, b)
    ctx.check(str(out.dtype) == "torch.bool", f"lt returned {out.dtype}")
    ctx.check_equal(out, a_h < b_h)


@case("scalar-and-broadcast")
def lt_scalar(ctx):
    import torch

    x = np.arange(-3, 4, dtype="float32").reshape(7, 1)
    ctx.check_equal(ctx.measure(torch.lt, ctx.put(x), 0.5), x < 0.5)


@case("nan-is-false")
def lt_nan(ctx):
    import torch

    x = ctx.put(np.array([np.nan, 1.0], dtype="float32"))
    ctx.check_equal(
        ctx.measure(torch.lt, x, ctx.put(np.array([1.0, np.nan], dtype="float32"))), [False, False]
    )
