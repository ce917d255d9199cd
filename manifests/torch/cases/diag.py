"""torch.diag: vector to matrix and matrix to vector, offsets, dtypes, autograd."""

import numpy as np
from _torchhelp import ALL_INTS, BOOL, COMPLEXES, EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


@case("vector-to-matrix", shape=(6,), k=0)
@case("vector-offset-2", shape=(5,), k=2)
@case("matrix-to-diagonal", shape=(7, 7), k=0)
@case("matrix-offset-minus1", shape=(5, 8), k=-1)
@case("int64-matrix", shape=(4, 4), k=1, dtype="int64")
@case("large-matrix", shape=(2000, 2000), k=0)
def diag_values(ctx, shape, k, dtype="float32"):
    import torch

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    ctx.check_equal(ctx.measure(torch.diag, ctx.put(x), k), np.diag(x, k))


@case("grad-of-extracted-diagonal")
def diag_grad(ctx):
    import torch

    x = ctx.put(np.zeros((3, 3), dtype="float32"), requires_grad=True)

    def backward():
        x.grad = None
        torch.diag(x).sum().backward()
        return x.grad

    ctx.check_close(ctx.measure(backward), np.eye(3), dtype="float32")


# Every dtype torch.diag takes on the CPU, both directions (vector to matrix, matrix to
# vector) with an offset, in each mode.
@sweep(
    "{dtype}-{direction}-{mode}-sweep",
    dtype=HALF_FLOATS + FULL_FLOATS + COMPLEXES + ALL_INTS + BOOL,
    direction=["vector", "matrix"],
    mode=EAGER_COMPILED,
)
def diag_dtypes(ctx, dtype, direction, mode):
    import torch
    from _torchhelp import draw, placed

    shape, k = ((9,), 1) if direction == "vector" else ((9, 12), -2)
    x, x_h = placed(ctx, draw(ctx, shape, dtype, 0, 9), dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda t: torch.diag(t, k)), x)
    ctx.check(out.dtype == x.dtype, f"dtype {out.dtype}, not {x.dtype}")
    ctx.check_equal(out, np.diag(x_h, k))


@sweep("{form}-sweep", form=["out", "non-contiguous", "offset-past-edge", "empty", "3d-refused"])
def diag_forms(ctx, form):
    import torch

    a_np = ctx.rng.standard_normal((6, 5)).astype("float32")
    a = ctx.put(a_np)
    if form == "out":
        buf = ctx.put(np.zeros(5, dtype="float32"))
        ctx.measure(torch.diag, a, 0, out=buf, warm=False)
        ctx.check_equal(buf, np.diag(a_np))
    elif form == "non-contiguous":
        view = a.t()
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        ctx.check_equal(ctx.measure(torch.diag, view, 1), np.diag(a_np.T, 1))
    elif form == "offset-past-edge":
        ctx.check_equal(ctx.measure(torch.diag, a, 7), np.diag(a_np, 7))  # empty diagonal
    elif form == "empty":
        out = ctx.measure(torch.diag, ctx.put(np.zeros(0, dtype="float32")))
        ctx.check(tuple(out.shape) == (0, 0), f"diag of an empty vector has shape {out.shape}")
    else:
        cube = ctx.put(np.zeros((2, 2, 2), dtype="float32"))

        def attempt():
            try:
                torch.diag(cube)
            except RuntimeError:
                return True
            return False

        ctx.check(ctx.measure(attempt), "diag accepted a 3-d tensor", category="other")


@sweep("grad-{dtype}-sweep", dtype=FULL_FLOATS + COMPLEXES)
def diag_grad_dtypes(ctx, dtype):
    import torch

    # gradcheck compares autograd with finite differences (float64/complex128 only); the
    # float32/complex64 cases check the vector-to-matrix gradient against ones.
    v = ctx.put(ctx.rng.standard_normal(5), dtype=dtype, requires_grad=True)
    if dtype in ("float64", "complex128"):
        ok = ctx.measure(torch.autograd.gradcheck, lambda t: torch.diag(t, 1), (v,), warm=False)
        ctx.check(ok, "gradcheck failed")
        return

    def backward():
        v.grad = None
        torch.diag(v, 1).abs().sum().backward()
        return v.grad

    vals = ctx.to_numpy(v.detach()).astype("complex128")
    ctx.check_close(ctx.measure(backward), vals / np.abs(vals), dtype=dtype)


# The study's kinds of paths (issue #33): the refusal of a 3-d input (class; the message
# changed between releases), vmap (a batch of vectors to a batch of diagonal matrices),
# second derivatives, and the diagonal against advanced indexing of the same elements.
@case("raises-3d")
def diag_raises(ctx):
    import torch
    from _torchhelp import refusal

    cube = ctx.put(np.zeros((2, 2, 2), dtype="float32"))
    refusal(ctx, lambda: torch.diag(cube), RuntimeError)


@sweep("vmap-{direction}", direction=["vector", "matrix"])
def diag_vmap(ctx, direction):
    import torch
    from _torchhelp import vmap

    shape = (4, 5) if direction == "vector" else (4, 5, 6)
    x = ctx.rng.standard_normal(shape)
    out = ctx.measure(vmap(ctx)(lambda t: torch.diag(t, 1)), ctx.put(x))
    ctx.check_equal(out, np.stack([np.diag(s, 1) for s in x]))


@case("grad2-gradgradcheck")
def diag_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    gradgradcheck(ctx, lambda t: torch.diag(t, -1) ** 3, ctx.rng.standard_normal((4, 3)))


@sweep("index-{offset}", offset=["main", "above", "below"])
def diag_indexing(ctx, offset):
    import torch

    k = {"main": 0, "above": 2, "below": -1}[offset]
    m = ctx.put(ctx.rng.standard_normal((5, 6)))
    rows = np.arange(max(-k, 0), min(5, 6 - k))
    gathered = m[ctx.put(rows), ctx.put(rows + k)]  # m[i, i + k] by advanced indexing
    ctx.check_equal(ctx.measure(torch.diag, m, k), ctx.to_numpy(gathered))
