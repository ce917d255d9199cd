"""torch.sum: reductions over dims, keepdim, dtype promotion of ints and bools, autograd."""

import numpy as np
from _torchhelp import draw, placed

from portbench_runner.api import case


@case("float32-all", dtype="float32", dim=None)
@case("float64-dim0", dtype="float64", dim=0)
@case("bfloat16-all", dtype="bfloat16", dim=None)
@case("int32-dim1", dtype="int32", dim=1)
@case("large", dtype="float32", dim=None, shape=(1000, 1000))
def sum_values(ctx, dtype, dim, shape=(64, 128)):
    import torch

    x, exact = placed(ctx, draw(ctx, shape, dtype, -100, 100), dtype)
    out = ctx.measure(torch.sum, x) if dim is None else ctx.measure(torch.sum, x, dim)
    expected = exact.sum(axis=dim)
    if dtype == "int32":
        ctx.check(str(out.dtype) == "torch.int64", f"int32 sum gave {out.dtype}, not int64")
        ctx.check_equal(out, expected)
    else:
        n = exact.size if dim is None else exact.shape[dim]
        rtol = {"float32": 1e-6 * n, "float64": 1e-12 * n, "bfloat16": 2e-2}[dtype]
        ctx.check_close(out, expected, rtol=rtol, atol=rtol * 100)


@case("bool-counts")
def sum_bool(ctx):
    import torch

    x = ctx.rng.random(10_000) > 0.3
    ctx.check_equal(ctx.measure(torch.sum, ctx.put(x)), int(x.sum()))


@case("keepdim-and-empty")
def sum_keepdim(ctx):
    import torch

    out = ctx.measure(torch.sum, ctx.put(np.zeros((0, 3), dtype="float32")), 0, keepdim=True)
    ctx.check_equal(out, np.zeros((1, 3)))


@case("grad-is-ones")
def sum_grad(ctx):
    import torch

    x = ctx.put(np.zeros((4, 5), dtype="float32"), requires_grad=True)

    def backward():
        x.grad = None
        torch.sum(x).backward()
        return x.grad

    ctx.check_close(ctx.measure(backward), np.ones((4, 5)), dtype="float32")
