"""torch.diag: vector to matrix and matrix to vector, offsets, dtypes, autograd."""

import numpy as np

from portbench_runner.api import case


@case("vector-to-matrix", shape=(6,), k=0)
@case("vector-offset-2", shape=(5,), k=2)
@case("matrix-to-diagonal", shape=(7, 7), k=0)
@case("matrix-offset-minus1", shape=(5, 8), k=-1)
@case("int64-matrix", shape=(4, 4), k=1, dtype="int64")
@case("large-matrix", shape=(2000, 2000), k=0)
def diag_values(ctx, shape, k, dtype="float32"):
    import torch

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    ctx.check_equal(ctx.measure(torch.diag, ctx.put(x), k), np.diag(x, k))


@case("grad-of-extracted-diagonal")
def diag_grad(ctx):
    import torch

    x = ctx.put(np.zeros((3, 3), dtype="float32"), requires_grad=True)

    def backward():
        x.grad = None
        torch.diag(x).sum().backward()
        return x.grad

    ctx.check_close(ctx.measure(backward), np.eye(3), dtype="float32")
