"""torch.fliplr: reverses columns of 2-d and n-d tensors, refuses 1-d, autograd, compiled."""

import numpy as np
from _torchhelp import ALL_INTS, BOOL, COMPLEXES, EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


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


# Every dtype torch.fliplr takes on the CPU, in each mode.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=HALF_FLOATS + FULL_FLOATS + COMPLEXES + ALL_INTS + BOOL,
    mode=EAGER_COMPILED,
)
def fliplr_dtypes(ctx, dtype, mode):
    import torch
    from _torchhelp import draw, placed

    x, x_h = placed(ctx, draw(ctx, (6, 9, 2), dtype, 0, 9), dtype)
    out = ctx.measure(ctx.in_mode(mode, torch.fliplr), x)
    ctx.check(out.dtype == x.dtype, f"dtype {out.dtype}, not {x.dtype}")
    ctx.check_equal(out, np.fliplr(x_h))


@sweep("{form}-sweep", form=["non-contiguous", "empty", "copies", "twice-is-identity"])
def fliplr_forms(ctx, form):
    import torch

    a_np = ctx.rng.standard_normal((7, 5)).astype("float32")
    a = ctx.put(a_np)
    if form == "non-contiguous":
        view = a.t()
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        ctx.check_equal(ctx.measure(torch.fliplr, view), np.fliplr(a_np.T))
    elif form == "empty":
        e = np.zeros((3, 0), dtype="float32")
        ctx.check_equal(ctx.measure(torch.fliplr, ctx.put(e)), e)
    elif form == "copies":
        # Documented: unlike NumPy's view, torch.fliplr copies the data.
        out = ctx.measure(torch.fliplr, a)
        ctx.check(out.data_ptr() != a.data_ptr(), "fliplr returned a view", "other")
        out.zero_()
        ctx.check_equal(a, a_np)
    else:
        ctx.check_equal(ctx.measure(lambda t: torch.fliplr(torch.fliplr(t)), a), a_np)


@sweep("grad-{dtype}-sweep", dtype=["float32", "float64", "bfloat16"])
def fliplr_grad_dtypes(ctx, dtype):
    import torch

    x = ctx.put(np.zeros((3, 4), dtype="float32"), dtype=dtype, requires_grad=True)
    w_np = np.arange(12, dtype="float32").reshape(3, 4)
    w = ctx.put(w_np, dtype=dtype)

    def backward():
        x.grad = None
        (torch.fliplr(x) * w).sum().backward()
        return x.grad

    ctx.check_equal(ctx.measure(backward), np.fliplr(w_np))  # small integers: exact


# The study's kinds of paths (issue #33): indexing forms (fliplr against flip and against
# advanced indexing with a reversed index; torch's refusal of a negative slice step, the
# reason fliplr exists), vmap, and second derivatives.
@sweep("index-{form}", form=["flip", "reversed-index", "slice-then-flip"])
def fliplr_indexing(ctx, form):
    import torch

    x_np = ctx.rng.standard_normal((4, 7, 2))
    x = ctx.put(x_np)
    if form == "flip":
        out = ctx.measure(torch.fliplr, x)
        ctx.check_equal(out, ctx.to_numpy(x.flip(1)))
    elif form == "reversed-index":
        out = ctx.measure(torch.fliplr, x)
        rev = ctx.put(np.arange(6, -1, -1))
        ctx.check_equal(out, ctx.to_numpy(x[:, rev]))
    else:
        out = ctx.measure(torch.fliplr, x[1:3, ::2])
        ctx.check_equal(out, np.fliplr(x_np[1:3, ::2]))


@case("raises-negative-slice-step")
def fliplr_negative_step(ctx):
    from _torchhelp import refusal

    x = ctx.put(np.zeros((3, 4), dtype="float32"))
    refusal(ctx, lambda: x[:, ::-1], ValueError, "step must be greater than zero")


@case("vmap-batch")
def fliplr_vmap(ctx):
    import torch
    from _torchhelp import vmap

    x = ctx.rng.standard_normal((3, 4, 5, 2))
    out = ctx.measure(vmap(ctx)(torch.fliplr), ctx.put(x))
    ctx.check_equal(out, x[:, :, ::-1])


@case("grad2-gradgradcheck")
def fliplr_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    w = ctx.put(ctx.rng.standard_normal((3, 4)))
    gradgradcheck(ctx, lambda t: (torch.fliplr(t) * w) ** 3, ctx.rng.standard_normal((3, 4)))
