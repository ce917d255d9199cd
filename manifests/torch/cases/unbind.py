"""torch.unbind: split a tensor into its slices along a dimension; views; autograd."""

import numpy as np

from portbench_runner.api import case


@case("dim0", dim=0)
@case("dim1", dim=1)
@case("dim-last-int32", dim=-1, dtype="int32")
@case("large-dim0", dim=0, shape=(1000, 1000))
def unbind_values(ctx, dim, dtype="float32", shape=(3, 4, 5)):
    import torch

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    out = ctx.measure(torch.unbind, ctx.put(x), dim)
    expected = [np.take(x, i, axis=dim) for i in range(x.shape[dim])]
    ctx.check(len(out) == len(expected), f"{len(out)} slices, expected {len(expected)}")
    ctx.check_equal(out[-1], expected[-1])
    ctx.check_equal(out[0], expected[0])


@case("grad-gathers-slices")
def unbind_grad(ctx):
    import torch

    x = ctx.put(np.zeros((3, 2), dtype="float32"), requires_grad=True)

    def backward():
        x.grad = None
        parts = torch.unbind(x)
        (parts[0] * 1 + parts[2] * 3).sum().backward()
        return x.grad

    ctx.check_close(ctx.measure(backward), [[1, 1], [0, 0], [3, 3]], dtype="float32")
