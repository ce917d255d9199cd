"""torch.moveaxis: move one or several axes, negative axes, views, autograd."""

import numpy as np
from _torchhelp import COMPLEX_DTYPES, FLOAT_DTYPES, INT_DTYPES, MODES, draw, gradcheck, placed

from portbench_runner.api import case, sweep


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


# moveaxis only permutes strides, so every dtype must come back exact, eager and compiled.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOAT_DTYPES + COMPLEX_DTYPES + INT_DTYPES + ("bool",),
    mode=MODES,
)
def moveaxis_dtypes(ctx, dtype, mode):
    import torch

    x, x_h = placed(ctx, draw(ctx, (3, 4, 5), dtype, 0, 9), dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda t: torch.moveaxis(t, (0, 2), (2, 0))), x)
    ctx.check(str(out.dtype) == f"torch.{dtype}", f"moveaxis returned {out.dtype}")
    ctx.check_equal(out, np.moveaxis(x_h, (0, 2), (2, 0)))


@sweep(
    "{form}-form",
    form=["non-contiguous", "0d", "empty", "identity", "method", "movedim-alias", "writes-through"],
)
def moveaxis_forms(ctx, form):
    import torch

    x_np = ctx.rng.integers(-9, 9, size=(2, 3, 4)).astype("float32")
    x = ctx.put(x_np)
    if form == "non-contiguous":
        view = x[:, ::2, 1:]
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        out, expected = ctx.measure(torch.moveaxis, view, 2, 0), np.moveaxis(x_np[:, ::2, 1:], 2, 0)
    elif form == "0d":
        # A 0-d tensor has no axes: moving none of them returns it unchanged.
        out, expected = ctx.measure(torch.moveaxis, ctx.put(np.array(4.0, "float32")), (), ()), 4.0
    elif form == "empty":
        e = np.zeros((0, 3, 2), "float32")
        out, expected = ctx.measure(torch.moveaxis, ctx.put(e), 0, -1), np.moveaxis(e, 0, -1)
    elif form == "identity":
        out, expected = ctx.measure(torch.moveaxis, x, 1, 1), x_np
    elif form == "method":
        out, expected = ctx.measure(lambda t: t.moveaxis(-1, 0), x), np.moveaxis(x_np, -1, 0)
    elif form == "movedim-alias":
        out = ctx.measure(torch.movedim, x, (0, 1), (1, 2))
        ctx.check_equal(torch.moveaxis(x, (0, 1), (1, 2)), ctx.to_numpy(out))
        expected = np.moveaxis(x_np, (0, 1), (1, 2))
    else:
        # The result is a view: writing through it changes the input.
        out = ctx.measure(torch.moveaxis, x, 0, 2, warm=False)
        out[0, 0, 1] = 100.0
        ctx.check(float(x[1, 0, 0]) == 100.0, "a write to the moveaxis result did not reach x")
        expected = np.moveaxis(x_np, 0, 2)
        expected[0, 0, 1] = 100.0
    ctx.check_equal(out, expected)


@case("gradcheck-float64")
def moveaxis_gradcheck(ctx):
    import torch

    gradcheck(
        ctx, lambda t: torch.moveaxis(t, (0, 1), (2, 0)) ** 2, ctx.rng.standard_normal((2, 3, 4))
    )


# The study's kinds of paths (issue #33): the refusals with class and message (a repeated
# source dim, source and destination of different lengths, a dim out of range), vmap, and
# second derivatives.
@sweep("raises-{arg}", arg=["repeated-dim", "length-mismatch", "dim-out-of-range"])
def moveaxis_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    x = ctx.put(np.zeros((2, 3, 4), dtype="float32"))
    attempt, error, fragment = {
        "repeated-dim": (
            lambda: torch.moveaxis(x, (0, 0), (1, 2)),
            RuntimeError,
            "repeated dim in `source`",
        ),
        "length-mismatch": (
            lambda: torch.moveaxis(x, (0, 1), (1,)),
            RuntimeError,
            "should contain the same number of dims as destination",
        ),
        "dim-out-of-range": (lambda: torch.moveaxis(x, 3, 0), IndexError, "out of range"),
    }[arg]
    refusal(ctx, attempt, error, fragment)


@sweep("vmap-{dims}-dims", dims=["int", "tuple"])
def moveaxis_vmap(ctx, dims):
    import torch
    from _torchhelp import vmap

    # Inside vmap the dims are the sample's: moving 0 to -1 of (3, 4, 5) samples, given as
    # ints (the moveaxis.int overload) or as one-element tuples (moveaxis.intlist).
    src, dst = (0, -1) if dims == "int" else ((0,), (-1,))
    x = ctx.rng.standard_normal((2, 3, 4, 5))
    out = ctx.measure(vmap(ctx)(lambda t: torch.moveaxis(t, src, dst)), ctx.put(x))
    ctx.check_equal(out, np.moveaxis(x, 1, -1))


@case("grad2-gradgradcheck")
def moveaxis_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    w = ctx.put(ctx.rng.standard_normal((4, 2, 3)))
    gradgradcheck(
        ctx,
        lambda t: (torch.moveaxis(t, (0, 1), (1, 2)) * w) ** 3,
        ctx.rng.standard_normal((2, 3, 4)),
    )
