"""torch.moveaxis: move one or several axes, negative axes, views, autograd."""

import numpy as np

from portbench_runner.api import case


@case("one-axis", src=0, dst=2)
@case("negative", src=-1, dst=0)
@case("several", src=(0, 1), dst=(2, 0))
@case("int64", src=1, dst=0, dtype="int64")
def moveaxis_values(ctx, src, dst, dtype="float32"):
    import torch

    x = (ctx.rng.standard_normal((2, 3, 4)) * 10).astype(dtype)
    ctx.check_equal(ctx.measure(torch.moveaxis, ctx.put(x), src, dst), np.moveaxis(x, src, dst))


@case("large-is-a-view")
def moveaxis_view(ctx):
    import torch

    x = ctx.put(np.zeros((500, 1000), dtype="float32"))
    out = ctx.measure(torch.moveaxis, x, 0, 1)
    ctx.check(
        out.data_ptr() == x.data_ptr() and tuple(out.shape) == (1000, 500),
        "moveaxis copied or mis-shaped",
    )


@case("grad")
def moveaxis_grad(ctx):
    import torch

    x = ctx.put(np.zeros((2, 3), dtype="float32"), requires_grad=True)
    w = ctx.put(np.arange(6, dtype="float32").reshape(3, 2))

    def backward():
        x.grad = None
        (torch.moveaxis(x, 0, 1) * w).sum().backward()
        return x.grad

    ctx.check_close(ctx.measure(backward), np.arange(6).reshape(3, 2).T, dtype="float32")
