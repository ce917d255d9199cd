"""torch.round: half to even, decimals, dtypes, integers unchanged, compiled."""

import numpy as np
from _torchhelp import unary

from portbench_runner.api import case


@case("float32", dtype="float32")
@case("float64", dtype="float64")
@case("bfloat16", dtype="bfloat16")
@case("large", dtype="float32", shape=(1_000_000,))
def round_values(ctx, dtype, shape=(1024,)):
    import torch

    unary(ctx, torch.round, np.round, dtype=dtype, shape=shape, lo=-100, hi=100, rtol=0.0)


@case("half-to-even")
def round_half_even(ctx):
    import torch

    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5], dtype="float32")
    ctx.check_equal(ctx.measure(torch.round, ctx.put(x)), [0.0, 2.0, 2.0, -0.0, -2.0])


@case("decimals")
def round_decimals(ctx):
    import torch

    if not ctx.version_at_least("1.11"):
        ctx.skip(f"round(decimals=) arrived in torch 1.11 (this is {ctx.version})")
    x = np.array([1.2345, -2.71828, 3.14159], dtype="float64")
    ctx.check_close(
        ctx.measure(torch.round, ctx.put(x), decimals=2), np.round(x, 2), dtype="float64"
    )


@case("compiled")
def round_compiled(ctx):
    import torch

    unary(ctx, torch.round, np.round, compiled=True, lo=-10, hi=10, rtol=0.0)
