"""torch.broadcast_tensors: shapes broadcast to a common shape, views, errors, autograd."""

import numpy as np

from portbench_runner.api import case


@case("row-and-column", shapes=((3, 1), (1, 4)))
@case("three-inputs", shapes=((2, 1, 5), (4, 1), (5,)))
@case("scalar-and-matrix", shapes=((), (3, 3)))
@case("empty", shapes=((0, 1), (1, 4)))
def broadcast_values(ctx, shapes):
    import torch

    arrays = [ctx.rng.standard_normal(s).astype("float32") for s in shapes]
    out = ctx.measure(torch.broadcast_tensors, *(ctx.put(a) for a in arrays))
    for got, want in zip(out, np.broadcast_arrays(*arrays)):
        ctx.check_equal(got, want)


@case("incompatible-refused")
def broadcast_incompatible(ctx):
    import torch

    a, b = ctx.put(np.zeros((3,))), ctx.put(np.zeros((4,)))

    def attempt():
        try:
            torch.broadcast_tensors(a, b)
        except RuntimeError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "shapes (3,) and (4,) were broadcast")


@case("grad-sums-over-broadcast")
def broadcast_grad(ctx):
    import torch

    a = ctx.put(np.zeros((3, 1), dtype="float32"), requires_grad=True)
    b = ctx.put(np.zeros((1, 4), dtype="float32"))

    def backward():
        a.grad = None
        x, _ = torch.broadcast_tensors(a, b)
        x.sum().backward()
        return a.grad

    ctx.check_close(ctx.measure(backward), np.full((3, 1), 4.0), dtype="float32")
