"""torch.unsqueeze: insert a size-1 dimension at each position, negative dims, views."""

import numpy as np
from _torchhelp import COMPLEX_DTYPES, FLOAT_DTYPES, INT_DTYPES, MODES, draw, gradcheck, placed

from portbench_runner.api import case, sweep


@case("dim0", dim=0)
@case("dim-middle", dim=1)
@case("dim-last", dim=-1)
@case("scalar", dim=0, shape=())
@case("bool", dim=2, dtype="bool")
def unsqueeze_values(ctx, dim, shape=(3, 4), dtype="float32"):
    import torch

    x = ctx.rng.standard_normal(shape).astype("float32")
    x = x > 0 if dtype == "bool" else x
    ctx.check_equal(ctx.measure(torch.unsqueeze, ctx.put(x), dim), np.expand_dims(x, dim))


@case("out-of-range-refused")
def unsqueeze_bad_dim(ctx):
    import torch

    x = ctx.put(np.zeros((2, 2)))

    def attempt():
        try:
            torch.unsqueeze(x, 5)
        except IndexError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "unsqueeze accepted dim=5 for a 2-d tensor")


@case("large-is-a-view")
def unsqueeze_view(ctx):
    import torch

    x = ctx.put(np.zeros((1000, 1000), dtype="float32"))
    out = ctx.measure(torch.unsqueeze, x, 1)
    ctx.check(out.data_ptr() == x.data_ptr() and tuple(out.shape) == (1000, 1, 1000), "not a view")


# unsqueeze only adds a stride, so every dtype must come back exact, eager and compiled.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOAT_DTYPES + COMPLEX_DTYPES + INT_DTYPES + ("bool",),
    mode=MODES,
)
def unsqueeze_dtypes(ctx, dtype, mode):
    import torch

    x, x_h = placed(ctx, draw(ctx, (4, 6), dtype, 0, 9), dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda t: torch.unsqueeze(t, -2)), x)
    ctx.check(str(out.dtype) == f"torch.{dtype}", f"unsqueeze returned {out.dtype}")
    ctx.check_equal(out, np.expand_dims(x_h, -2))


@sweep("{form}-form", form=["in-place", "non-contiguous", "empty", "method", "writes-through"])
def unsqueeze_forms(ctx, form):
    import torch

    x_np = ctx.rng.integers(-9, 9, size=(3, 4)).astype("float32")
    x = ctx.put(x_np)
    if form == "in-place":
        out = ctx.measure(x.unsqueeze_, 1, warm=False)
        ctx.check(out is x and tuple(x.shape) == (3, 1, 4), f"unsqueeze_ gave {tuple(x.shape)}")
        expected = np.expand_dims(x_np, 1)
    elif form == "non-contiguous":
        view = x.t()
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        out, expected = ctx.measure(torch.unsqueeze, view, 2), np.expand_dims(x_np.T, 2)
    elif form == "empty":
        e = np.zeros((0, 4), "float32")
        out, expected = ctx.measure(torch.unsqueeze, ctx.put(e), 1), np.expand_dims(e, 1)
    elif form == "method":
        out, expected = ctx.measure(lambda t: t.unsqueeze(0), x), x_np[None]
    else:
        out = ctx.measure(torch.unsqueeze, x, 0, warm=False)
        out[0, 2, 3] = 50.0
        ctx.check(float(x[2, 3]) == 50.0, "a write to the unsqueezed view did not reach x")
        expected = x_np.copy()
        expected[2, 3] = 50.0
        expected = expected[None]
    ctx.check_equal(out, expected)


@case("gradcheck-float64")
def unsqueeze_gradcheck(ctx):
    import torch

    gradcheck(
        ctx, lambda t: torch.unsqueeze(t, 1) * torch.unsqueeze(t, 0), ctx.rng.standard_normal(5)
    )


# The study's kinds of paths (issue #33): the refusal of a negative dim out of range (class
# and message), indexing forms (x[:, None], x[..., None] and x[None] are unsqueeze views),
# vmap (dims are the sample's), and second derivatives.
@case("raises-negative-dim")
def unsqueeze_negative_refused(ctx):
    import torch
    from _torchhelp import refusal

    x = ctx.put(np.zeros((2, 2), dtype="float32"))
    refusal(ctx, lambda: torch.unsqueeze(x, -4), IndexError, "out of range")


@sweep("index-{form}", form=["none-middle", "ellipsis-none", "none-first"])
def unsqueeze_indexing(ctx, form):
    import torch

    x = ctx.put(ctx.rng.integers(-9, 9, size=(3, 4)).astype("float32"))
    dim, view = {
        "none-middle": (1, lambda: x[:, None]),
        "ellipsis-none": (-1, lambda: x[..., None]),
        "none-first": (0, lambda: x[None]),
    }[form]
    out = ctx.measure(torch.unsqueeze, x, dim)
    other = view()
    ctx.check(
        out.shape == other.shape and out.stride() == other.stride(),
        f"{out.stride()} vs {other.stride()}",
    )
    ctx.check_equal(out, ctx.to_numpy(other))


@case("vmap-sample-dims")
def unsqueeze_vmap(ctx):
    import torch
    from _torchhelp import vmap

    x = ctx.rng.standard_normal((4, 3, 5))
    out = ctx.measure(vmap(ctx)(lambda t: torch.unsqueeze(t, 1)), ctx.put(x))
    ctx.check_equal(out, x[:, :, None, :])


@case("grad2-gradgradcheck")
def unsqueeze_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    gradgradcheck(
        ctx,
        lambda t: torch.unsqueeze(t, 1) * torch.unsqueeze(t, 0) ** 2,
        ctx.rng.standard_normal(4),
    )
