"""torch.bitwise_not: integers of each width, booleans, floats refused, compiled."""

import numpy as np
from _torchhelp import unary

from portbench_runner.api import case


@case("int32", dtype="int32")
@case("int64", dtype="int64")
@case("uint8", dtype="uint8")
@case("int8", dtype="int8")
@case("bool", dtype="bool")
@case("large-int32", dtype="int32", shape=(1_000_000,))
def bitwise_not_values(ctx, dtype, shape=(1024,)):
    import torch

    lo, hi = {"uint8": (0, 256), "int8": (-128, 128)}.get(dtype, (-(2**30), 2**30))
    unary(ctx, torch.bitwise_not, np.invert, dtype=dtype, shape=shape, lo=lo, hi=hi)


@case("float-is-refused")
def bitwise_not_float(ctx):
    import torch

    x = ctx.put(np.ones(3, dtype="float32"))

    def attempt():
        try:
            torch.bitwise_not(x)
        except (RuntimeError, TypeError):
            return True
        return False

    ctx.check(ctx.measure(attempt), "bitwise_not accepted a float tensor", category="type")


@case("compiled")
def bitwise_not_compiled(ctx):
    import torch

    x = np.arange(-8, 8, dtype="int32")
    ctx.check_equal(ctx.measure(ctx.compiled(torch.bitwise_not), ctx.put(x)), np.invert(x))
