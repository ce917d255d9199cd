"""torch.nn.SmoothL1Loss: quadratic below beta, linear above; reductions, beta, autograd."""

import numpy as np
from _torchhelp import EAGER_COMPILED, FLOAT_DTYPES

from portbench_runner.api import case, sweep


def _reference(x, y, beta=1.0):
    d = np.abs(x - y)
    return np.where(d < beta, 0.5 * d**2 / beta, d - 0.5 * beta)


@case("mean", reduction="mean")
@case("sum", reduction="sum")
@case("none", reduction="none")
@case("beta-half", reduction="mean", beta=0.5)
@case("float64-large", reduction="mean", dtype="float64", n=1_000_000)
def smooth_l1_values(ctx, reduction, beta=1.0, dtype="float32", n=256):
    import torch

    x = (ctx.rng.standard_normal(n) * 2).astype(dtype)
    y = (ctx.rng.standard_normal(n) * 2).astype(dtype)
    loss = torch.nn.SmoothL1Loss(reduction=reduction, beta=beta)
    out = ctx.measure(loss, ctx.put(x), ctx.put(y))
    ref = _reference(x.astype("float64"), y.astype("float64"), beta)
    expected = {"mean": ref.mean(), "sum": ref.sum(), "none": ref}[reduction]
    ctx.check_close(out, expected, rtol=1e-5, atol=1e-5)


@case("grad-is-clipped-difference")
def smooth_l1_grad(ctx):
    import torch

    x_np = np.array([0.2, -0.5, 3.0, -4.0], dtype="float32")
    x = ctx.put(x_np, requires_grad=True)
    zeros = ctx.put(np.zeros(4, dtype="float32"))

    def backward():
        x.grad = None
        torch.nn.SmoothL1Loss(reduction="sum")(x, zeros).backward()
        return x.grad

    ctx.check_close(ctx.measure(backward), np.clip(x_np, -1, 1), dtype="float32")


# The study's T4 report: `"smooth_l1_cuda" not implemented for 'BFloat16'` (torch 1.12).
@sweep(
    "{dtype}-{reduction}-{mode}",
    dtype=FLOAT_DTYPES,
    reduction=["mean", "none"],
    mode=EAGER_COMPILED,
)
def smooth_l1_dtypes(ctx, dtype, reduction, mode):
    import torch
    from _torchhelp import RTOL, draw, placed

    x, x_h = placed(ctx, draw(ctx, (257,), dtype), dtype)
    y, y_h = placed(ctx, draw(ctx, (257,), dtype), dtype)
    loss = torch.nn.SmoothL1Loss(reduction=reduction)
    out = ctx.measure(ctx.in_mode(mode, loss), x, y)
    ref = _reference(x_h, y_h)
    expected = ref.mean() if reduction == "mean" else ref
    ctx.check_close(out, expected, rtol=RTOL[dtype] * 5, atol=RTOL[dtype] * 5)


@sweep("grad-{dtype}", dtype=["bfloat16", "float64"])
def smooth_l1_grad_dtypes(ctx, dtype):
    import torch
    from _torchhelp import placed

    x, x_h = placed(ctx, np.array([0.25, -0.5, 3.0, -4.0], dtype="float32"), dtype, True)
    zeros = ctx.put(np.zeros(4, dtype="float32"), dtype=dtype)

    def backward():
        x.grad = None
        torch.nn.SmoothL1Loss(reduction="sum")(x, zeros).backward()
        return x.grad

    ctx.check_close(ctx.measure(backward), np.clip(x_h, -1, 1), rtol=1e-2, atol=1e-2)


# The study's kinds of paths (issue #33): the refusals with class and message (a negative
# beta; an unknown reduction), the full grid of reduction x beta (beta = 0 is the L1
# loss), vmap of per-sample losses, and second derivatives.
@sweep("raises-{arg}", arg=["negative-beta", "reduction"])
def smooth_l1_refusals(ctx, arg):
    import torch.nn.functional as F
    from _torchhelp import refusal

    x = ctx.put(np.zeros(4))
    if arg == "negative-beta":
        refusal(
            ctx, lambda: F.smooth_l1_loss(x, x, beta=-1.0), RuntimeError, "negative values for beta"
        )
    else:
        refusal(
            ctx,
            lambda: F.smooth_l1_loss(x, x, reduction="average"),
            ValueError,
            "is not a valid value for reduction",
        )


@sweep(
    "flags-{reduction}-beta{beta}", reduction=["mean", "sum", "none"], beta=["0", "0.5", "1", "2"]
)
def smooth_l1_grid(ctx, reduction, beta):
    import torch

    b = float(beta)
    x_np, y_np = ctx.rng.standard_normal(40) * 2, ctx.rng.standard_normal(40) * 2
    out = ctx.measure(
        torch.nn.SmoothL1Loss(reduction=reduction, beta=b), ctx.put(x_np), ctx.put(y_np)
    )
    ref = np.abs(x_np - y_np) if b == 0 else _reference(x_np, y_np, b)
    expected = {"mean": ref.mean(), "sum": ref.sum(), "none": ref}[reduction]
    ctx.check_close(out, expected, dtype="float64", kind="reduction")


@case("vmap-per-sample-losses")
def smooth_l1_vmap(ctx):
    import torch.nn.functional as F
    from _torchhelp import vmap

    x_np, y_np = ctx.rng.standard_normal((5, 9)) * 2, ctx.rng.standard_normal((5, 9))
    fn = vmap(ctx)(lambda a, b: F.smooth_l1_loss(a, b, beta=0.5))
    out = ctx.measure(fn, ctx.put(x_np), ctx.put(y_np))
    ctx.check_close(
        out, _reference(x_np, y_np, 0.5).mean(axis=1), dtype="float64", kind="reduction"
    )


@case("grad2-gradgradcheck")
def smooth_l1_gradgrad(ctx):
    import torch.nn.functional as F
    from _torchhelp import gradgradcheck

    # Differences away from the kink at |d| = beta, where the second derivative jumps.
    x = np.array([0.1, -0.3, 2.0, -3.0, 0.7])
    gradgradcheck(
        ctx, lambda a, b: F.smooth_l1_loss(a, b, beta=1.5, reduction="sum"), x, np.zeros(5)
    )
