"""torch.Tensor.size: the shape as torch.Size, per dimension, negative dims, empty tensors."""

import numpy as np

from portbench_runner.api import case


@case("3d", shape=(2, 3, 4))
@case("scalar", shape=())
@case("empty", shape=(0, 5))
@case("large", shape=(1000, 1000))
def size_values(ctx, shape):
    import torch

    x = ctx.put(np.zeros(shape, dtype="float32"))
    out = ctx.measure(x.size)
    ctx.check(isinstance(out, torch.Size) and tuple(out) == shape, f"size() gave {out}")


@case("per-dimension")
def size_dims(ctx):
    x = ctx.put(np.zeros((2, 3, 4), dtype="float32"))
    out = ctx.measure(lambda: (x.size(0), x.size(-1), x.size(1)))
    ctx.check(out == (2, 4, 3), f"size(dim) gave {out}")


@case("dim-out-of-range")
def size_bad_dim(ctx):
    x = ctx.put(np.zeros((2, 3), dtype="float32"))

    def attempt():
        try:
            x.size(2)
        except IndexError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "size(2) of a 2-d tensor did not raise")
