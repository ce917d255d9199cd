"""torch.broadcast_tensors: shapes broadcast to a common shape, views, errors, autograd."""

import numpy as np
from _torchhelp import ALL_INTS, BOOL, COMPLEXES, EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


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


# broadcast_tensors moves no data, so every dtype should pass through it unchanged; each
# mode, with inputs of two dtypes at once (it broadcasts shapes, it does not promote).
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=HALF_FLOATS + FULL_FLOATS + COMPLEXES + ALL_INTS + BOOL,
    mode=EAGER_COMPILED,
)
def broadcast_dtypes(ctx, dtype, mode):
    import torch
    from _torchhelp import draw, placed

    a, a_h = placed(ctx, draw(ctx, (4, 1, 3), dtype, 0, 9), dtype)
    b, b_h = placed(ctx, draw(ctx, (5, 1), "int64", 0, 9), "int64")
    out = ctx.measure(ctx.in_mode(mode, torch.broadcast_tensors), a, b)
    want_a, want_b = np.broadcast_arrays(a_h, b_h)
    ctx.check(out[0].dtype == a.dtype and out[1].dtype == b.dtype, "broadcast changed a dtype")
    ctx.check_equal(out[0], want_a)
    ctx.check_equal(out[1], want_b)


@sweep("{form}-sweep", form=["shares-storage", "non-contiguous", "single-input", "zero-size"])
def broadcast_forms(ctx, form):
    import torch

    a_np = ctx.rng.standard_normal((6, 4)).astype("float32")
    a = ctx.put(a_np)
    if form == "shares-storage":
        # The results are expanded views (stride 0), not copies.
        row = ctx.put(np.arange(4, dtype="float32"))
        x, _ = ctx.measure(torch.broadcast_tensors, row, a)
        ctx.check(x.data_ptr() == row.data_ptr() and x.stride()[0] == 0, "not a view", "other")
        ctx.check_equal(x, np.broadcast_to(np.arange(4), (6, 4)))
    elif form == "non-contiguous":
        view = a[::2]  # (3, 4) with row stride 8
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        col = ctx.put(np.array([[[1.0]], [[2.0]]], dtype="float32"))  # (2, 1, 1)
        x, y = ctx.measure(torch.broadcast_tensors, view, col)
        ctx.check_equal(x, np.broadcast_to(a_np[::2], (2, 3, 4)))
        ctx.check_equal(y, np.broadcast_to([[[1.0]], [[2.0]]], (2, 3, 4)))
    elif form == "single-input":
        (x,) = ctx.measure(torch.broadcast_tensors, a)
        ctx.check_equal(x, a_np)
    else:
        x, y = ctx.measure(torch.broadcast_tensors, ctx.put(np.zeros((0, 1))), a[:1])
        ctx.check(tuple(x.shape) == (0, 4) and tuple(y.shape) == (0, 4), f"shapes {x.shape}")


@sweep("grad-{dtype}-sweep", dtype=["float32", "float64", "bfloat16", "complex128"])
def broadcast_grad_dtypes(ctx, dtype):
    import torch

    a = ctx.put(np.ones((3, 1), dtype="float32"), dtype=dtype, requires_grad=True)
    b = ctx.put(np.ones((1, 5), dtype="float32"), dtype=dtype, requires_grad=True)

    def backward():
        a.grad = b.grad = None
        x, y = torch.broadcast_tensors(a, b)
        (x * 2 + y).real.sum().backward() if x.is_complex() else (x * 2 + y).sum().backward()
        return a.grad, b.grad

    grad_a, grad_b = ctx.measure(backward)
    ctx.check_equal(grad_a, np.full((3, 1), 10.0))  # 2 per element, summed over 5 columns
    ctx.check_equal(grad_b, np.full((1, 5), 3.0))


# The study's kinds of paths (issue #33): the refusals with class and message (incompatible
# shapes; writing in place to an expanded result, whose elements share memory), vmap, and
# second derivatives.
@sweep("raises-{arg}", arg=["incompatible", "third-incompatible", "write-to-expanded"])
def broadcast_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    a, b = ctx.put(np.zeros((3, 1))), ctx.put(np.zeros((1, 4)))
    if arg == "write-to-expanded":
        x, _ = torch.broadcast_tensors(a, b)
        refusal(ctx, lambda: x.add_(1), RuntimeError, "single memory location", warm=False)
        return
    if arg == "incompatible":  # (3,) against (4,)
        inputs = (ctx.put(np.zeros(3)), ctx.put(np.zeros(4)))
    else:  # the first two agree on (3, 4); the third, (2, 3, 5), does not
        inputs = (a, b, ctx.put(np.zeros((2, 3, 5))))
    refusal(ctx, lambda: torch.broadcast_tensors(*inputs), RuntimeError, "must match")


@case("vmap-per-sample-shapes")
def broadcast_vmap(ctx):
    import torch
    from _torchhelp import vmap

    # Per sample (3, 1) against (4,): each sample broadcasts to (3, 4).
    a_np, b_np = ctx.rng.standard_normal((5, 3, 1)), ctx.rng.standard_normal((5, 4))
    x, y = ctx.measure(vmap(ctx)(torch.broadcast_tensors), ctx.put(a_np), ctx.put(b_np))
    ctx.check_equal(x, np.broadcast_to(a_np, (5, 3, 4)))
    ctx.check_equal(y, np.broadcast_to(b_np[:, None, :], (5, 3, 4)))


@case("grad2-gradgradcheck")
def broadcast_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    def fn(a, b):
        x, y = torch.broadcast_tensors(a, b)
        return x * y * x

    gradgradcheck(ctx, fn, ctx.rng.standard_normal((3, 1)), ctx.rng.standard_normal((1, 4)))
