"""torch.fliplr: reverses columns of 2-d and n-d tensors, refuses 1-d, autograd, compiled."""

import numpy as np

from portbench_runner.api import case


@case("float32-2d", shape=(6, 7))
@case("float64-3d", shape=(3, 4, 5), dtype="float64")
@case("int32", shape=(5, 3), dtype="int32")
@case("large", shape=(2000, 2000))
def fliplr_values(ctx, shape, dtype="float32"):
    import torch

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    ctx.check_equal(ctx.measure(torch.fliplr, ctx.put(x)), np.fliplr(x))


@case("one-d-refused")
def fliplr_1d(ctx):
    import torch

    x = ctx.put(np.arange(4, dtype="float32"))

    def attempt():
        try:
            torch.fliplr(x)
        except RuntimeError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "fliplr accepted a 1-d tensor")


@case("compiled")
def fliplr_compiled(ctx):
    import torch

    x = np.arange(12, dtype="float32").reshape(3, 4)
    ctx.check_equal(ctx.measure(ctx.compiled(torch.fliplr), ctx.put(x)), np.fliplr(x))
