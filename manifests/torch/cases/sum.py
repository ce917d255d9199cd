"""torch.sum: reductions over dims, keepdim, dtype promotion of ints and bools, autograd."""

import numpy as np
from _torchhelp import (
    COMPLEX_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    MODES,
    draw,
    gradcheck,
    is_exact,
    placed,
    tol,
)

from portbench_runner.api import case, sweep


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


def _sum_reference(x_h, dtype, axis):
    """torch.sum promotes integers and bool to int64 (wrapping like int64); floats keep theirs."""
    if is_exact(dtype):
        return x_h.astype("int64").sum(axis=axis)
    return x_h.sum(axis=axis)


# Every dtype torch.sum reduces on the CPU, over all elements and over one dim, in each mode.
@sweep(
    "{dtype}-{dim}-{mode}-sweep",
    dtype=FLOAT_DTYPES + COMPLEX_DTYPES + INT_DTYPES + ("bool",),
    dim=["all", "dim1"],
    mode=MODES,
)
def sum_dtypes(ctx, dtype, dim, mode):
    import torch

    lo, hi = (0, 50) if dtype == "uint8" else (-50, 50)
    if dtype == "float16":
        lo, hi = -2, 2  # a float16 sum of 300 values must stay far from its 65504 limit
    x, x_h = placed(ctx, draw(ctx, (12, 25), dtype, lo, hi), dtype)
    axis = None if dim == "all" else 1
    fn = torch.sum if axis is None else (lambda t: torch.sum(t, 1))
    out = ctx.measure(ctx.in_mode(mode, fn), x)
    expected = _sum_reference(x_h, dtype, axis)
    if is_exact(dtype):
        ctx.check(out.dtype == torch.int64, f"{dtype} sum gave {out.dtype}, not int64")
        ctx.check_equal(out, expected)
    else:
        ctx.check(str(out.dtype) == f"torch.{dtype}", f"{dtype} sum gave {out.dtype}")
        # Scale the tolerance with the sum of magnitudes, not the (possibly cancelling) result.
        scale = np.abs(x_h).sum(axis=axis)
        r = tol(dtype, 10)["rtol"]
        ctx.check_close(out, expected, rtol=r, atol=r * np.max(scale))


@sweep(
    "{form}-form",
    form=[
        "keepdim",
        "dims-tuple",
        "negative-dim",
        "dtype-arg",
        "out",
        "non-contiguous",
        "empty-all",
        "0d",
        "method",
    ],
)
def sum_forms(ctx, form):
    import torch

    x_np = ctx.rng.integers(-9, 9, size=(3, 4, 5)).astype("float32")
    x = ctx.put(x_np)
    ref = x_np.astype("float64")
    if form == "keepdim":
        out, expected = ctx.measure(torch.sum, x, 1, keepdim=True), ref.sum(1, keepdims=True)
    elif form == "dims-tuple":
        out, expected = ctx.measure(torch.sum, x, (0, 2)), ref.sum((0, 2))
    elif form == "negative-dim":
        out, expected = ctx.measure(torch.sum, x, -1), ref.sum(-1)
    elif form == "dtype-arg":
        # dtype= casts before summing: int8 inputs that would wrap sum exactly in float64.
        big = ctx.put(np.full((300,), 100, dtype="int8"))
        out = ctx.measure(torch.sum, big, dtype=torch.float64)
        ctx.check(out.dtype == torch.float64, f"sum(dtype=float64) gave {out.dtype}")
        expected = 30000.0
    elif form == "out":
        buf = ctx.put(np.zeros((3, 5), dtype="float32"))
        ctx.measure(torch.sum, x, 1, out=buf, warm=False)
        out, expected = buf, ref.sum(1)
    elif form == "non-contiguous":
        view = x.transpose(0, 2)
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        out, expected = ctx.measure(torch.sum, view, 0), ref.transpose(2, 1, 0).sum(0)
    elif form == "empty-all":
        out, expected = ctx.measure(torch.sum, ctx.put(np.zeros((0,), "float32"))), 0.0
    elif form == "0d":
        out, expected = ctx.measure(torch.sum, ctx.put(np.array(3.5, "float32"))), 3.5
    else:
        out, expected = ctx.measure(lambda t: t.sum(dim=2), x), ref.sum(2)
    ctx.check_close(out, expected, rtol=1e-6, atol=1e-6)


@sweep("grad-{dim}-sweep", dim=["all", "dim0", "keepdim"])
def sum_gradcheck(ctx, dim):
    import torch

    fn = {
        "all": torch.sum,
        "dim0": lambda t: torch.sum(t, 0),
        "keepdim": lambda t: torch.sum(t, 1, keepdim=True),
    }[dim]
    gradcheck(ctx, fn, ctx.rng.standard_normal((3, 4)))


# The study's kinds of paths (issue #33): the refusals with class and message (a dim out of
# range; a dim given twice), the full grid of dims x keepdim x dtype=, vmap, second
# derivatives, and an uncoalesced sparse input whose duplicate indices all count.
@sweep("raises-{arg}", arg=["dim-out-of-range", "dim-repeated"])
def sum_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    x = ctx.put(np.zeros((3, 4), dtype="float32"))
    if arg == "dim-out-of-range":
        refusal(ctx, lambda: torch.sum(x, 2), IndexError, "out of range")
    else:
        refusal(ctx, lambda: torch.sum(x, (0, 0)), RuntimeError, "appears multiple times")


@sweep(
    "flags-{dims}-{keepdim}-{dtype}",
    dims=["dim0", "dims-0-2", "dim-minus1"],
    keepdim=["drop", "keepdim"],
    dtype=["same", "to-float64"],
)
def sum_grid(ctx, dims, keepdim, dtype):
    import torch

    axis = {"dim0": 0, "dims-0-2": (0, 2), "dim-minus1": -1}[dims]
    x_np = ctx.rng.integers(-9, 9, size=(3, 4, 5)).astype("float32")
    kwargs = {"keepdim": keepdim == "keepdim"}
    if dtype == "to-float64":
        kwargs["dtype"] = torch.float64
    out = ctx.measure(torch.sum, ctx.put(x_np), axis, **kwargs)
    want_dtype = torch.float64 if dtype == "to-float64" else torch.float32
    ctx.check(out.dtype == want_dtype, f"sum gave {out.dtype}, not {want_dtype}", "type")
    ctx.check_equal(out, x_np.astype("float64").sum(axis=axis, keepdims=keepdim == "keepdim"))


@case("vmap-batch")
def sum_vmap(ctx):
    import torch
    from _torchhelp import vmap

    x = ctx.rng.integers(-9, 9, size=(4, 3, 5)).astype("float64")
    out = ctx.measure(vmap(ctx)(lambda t: torch.sum(t, 0)), ctx.put(x))
    ctx.check_equal(out, x.sum(axis=1))


@case("grad2-gradgradcheck")
def sum_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    gradgradcheck(ctx, lambda t: torch.sum(t**3, 1), ctx.rng.standard_normal((3, 4)))


@case("duplicate-sparse-uncoalesced")
def sum_duplicates(ctx):
    import torch

    if ctx.flavor not in ("cpu", "cuda"):
        ctx.skip(f"sparse COO tensors are CPU/CUDA only (this is {ctx.flavor})")
    if not ctx.version_at_least("2.0"):
        ctx.skip(
            f"torch.sum of a sparse COO tensor arrived in torch 2.0 (pytorch#86300; {ctx.version})"
        )
    idx = ctx.put(np.array([[0, 0, 3, 3, 3], [1, 1, 2, 2, 0]], dtype="int64"))
    s = torch.sparse_coo_tensor(idx, ctx.put(np.array([1.0, 2.0, 4.0, 8.0, 16.0])), (4, 3))
    out = ctx.measure(torch.sum, s)
    ctx.check_close(out, 31.0, dtype="float64")
