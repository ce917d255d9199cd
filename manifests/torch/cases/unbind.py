"""torch.unbind: split a tensor into its slices along a dimension; views; autograd."""

import numpy as np
from _torchhelp import COMPLEX_DTYPES, FLOAT_DTYPES, INT_DTYPES, MODES, draw, gradcheck, placed

from portbench_runner.api import case, sweep


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


# unbind returns views of every slice: each dtype must come back exact, eager and compiled.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOAT_DTYPES + COMPLEX_DTYPES + INT_DTYPES + ("bool",),
    mode=MODES,
)
def unbind_dtypes(ctx, dtype, mode):
    import torch

    x, x_h = placed(ctx, draw(ctx, (4, 5, 6), dtype, 0, 9), dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda t: torch.unbind(t, 1)), x)
    ctx.check(len(out) == 5, f"{len(out)} slices, expected 5")
    for i, part in enumerate(out):
        ctx.check(str(part.dtype) == f"torch.{dtype}", f"slice {i} is {part.dtype}")
        ctx.check_equal(part, x_h[:, i], what=f"slice {i}")


@sweep("{form}-form", form=["non-contiguous", "empty-dim", "size-one", "method", "views"])
def unbind_forms(ctx, form):
    import torch

    x_np = ctx.rng.integers(-9, 9, size=(3, 4)).astype("float32")
    x = ctx.put(x_np)
    if form == "non-contiguous":
        view = x.t()
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        out, expected = ctx.measure(torch.unbind, view), list(x_np.T)
    elif form == "empty-dim":
        # Unbinding a dimension of length 0 gives no slices at all.
        out, expected = ctx.measure(torch.unbind, ctx.put(np.zeros((0, 4), "float32"))), []
    elif form == "size-one":
        out, expected = ctx.measure(torch.unbind, ctx.put(x_np[:1]), 0), [x_np[0]]
    elif form == "method":
        out, expected = ctx.measure(lambda t: t.unbind(-1), x), list(x_np.T)
    else:
        out = ctx.measure(torch.unbind, x, 0, warm=False)
        ctx.check(
            all(p.data_ptr() == x[i].data_ptr() for i, p in enumerate(out)),
            "unbind copied its slices instead of returning views",
            "other",
        )
        expected = list(x_np)
    ctx.check(len(out) == len(expected), f"{len(out)} slices, expected {len(expected)}")
    for i, (part, ref) in enumerate(zip(out, expected)):
        ctx.check_equal(part, ref, what=f"slice {i}")


@case("gradcheck-float64")
def unbind_gradcheck(ctx):
    import torch

    def fn(t):
        a, b, c = torch.unbind(t, 1)
        return a * b + c**2

    gradcheck(ctx, fn, ctx.rng.standard_normal((4, 3)))


# The study's kinds of paths (issue #33): the refusals with class and message (a dim out of
# range; a 0-d tensor), indexing forms (each slice is x.select / x[:, i] / x[..., -1]),
# vmap, and second derivatives.
@sweep("raises-{arg}", arg=["dim-out-of-range", "0d"])
def unbind_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    if arg == "dim-out-of-range":
        x = ctx.put(np.zeros((3, 4), dtype="float32"))
        refusal(ctx, lambda: torch.unbind(x, 2), IndexError, "out of range")
    else:
        s = ctx.put(np.array(1.0, dtype="float32"))
        refusal(
            ctx, lambda: torch.unbind(s), IndexError, "specified as 0 but tensor has no dimensions"
        )


@sweep("index-{form}", form=["select", "column", "ellipsis-last"])
def unbind_indexing(ctx, form):
    import torch

    x = ctx.put(ctx.rng.integers(-9, 9, size=(3, 4, 5)).astype("float32"))
    dim, pick = {"select": (0, lambda i: x.select(0, i)), "column": (1, lambda i: x[:, i])}.get(
        form, (-1, lambda i: x[..., i])
    )
    parts = ctx.measure(torch.unbind, x, dim)
    ctx.check(len(parts) == x.shape[dim], f"{len(parts)} slices")
    for i, part in enumerate(parts):
        ctx.check_equal(part, ctx.to_numpy(pick(i)), what=f"slice {i}")


@case("vmap-rows")
def unbind_vmap(ctx):
    import torch
    from _torchhelp import vmap

    x = ctx.rng.standard_normal((4, 3, 2))
    parts = ctx.measure(vmap(ctx)(lambda t: torch.unbind(t, 0)), ctx.put(x))
    ctx.check(len(parts) == 3, f"{len(parts)} outputs")
    for i, part in enumerate(parts):
        ctx.check_equal(part, x[:, i], what=f"output {i}")


@case("grad2-gradgradcheck")
def unbind_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    def fn(t):
        a, b, c = torch.unbind(t, 1)
        return a * b * c

    gradgradcheck(ctx, fn, ctx.rng.standard_normal((4, 3)))
