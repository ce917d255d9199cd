"""torch.lt: elementwise less-than across dtypes, broadcasting, scalars, nan."""

import numpy as np
from _torchhelp import FLOAT_DTYPES, INT_DTYPES, MODES, draw, placed

from portbench_runner.api import case, sweep


@case("float32", dtype="float32")
@case("float64", dtype="float64")
@case("int64", dtype="int64")
@case("bfloat16", dtype="bfloat16")
@case("large", dtype="float32", shape=(1000, 1000))
def lt_values(ctx, dtype, shape=(64, 64)):
    import torch

    a, a_h = placed(ctx, draw(ctx, shape, dtype, -5, 5), dtype)
    b, b_h = placed(ctx, draw(ctx, shape, dtype, -5, 5), dtype)
    out = ctx.measure(torch.lt, a, b)
    ctx.check(str(out.dtype) == "torch.bool", f"lt returned {out.dtype}")
    ctx.check_equal(out, a_h < b_h)


@case("scalar-and-broadcast")
def lt_scalar(ctx):
    import torch

    x = np.arange(-3, 4, dtype="float32").reshape(7, 1)
    ctx.check_equal(ctx.measure(torch.lt, ctx.put(x), 0.5), x < 0.5)


@case("nan-is-false")
def lt_nan(ctx):
    import torch

    x = ctx.put(np.array([np.nan, 1.0], dtype="float32"))
    ctx.check_equal(
        ctx.measure(torch.lt, x, ctx.put(np.array([1.0, np.nan], dtype="float32"))), [False, False]
    )


# Every real dtype torch.lt compares on the CPU, eager and under torch.compile; complex has no
# order (a case below asserts the refusal).
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOAT_DTYPES + INT_DTYPES + ("bool",),
    mode=MODES,
)
def lt_dtypes(ctx, dtype, mode):
    import torch

    a, a_h = placed(ctx, draw(ctx, (257,), dtype, 0, 6), dtype)
    b, b_h = placed(ctx, draw(ctx, (257,), dtype, 0, 6), dtype)
    out = ctx.measure(ctx.in_mode(mode, torch.lt), a, b)
    ctx.check(out.dtype == torch.bool, f"lt returned {out.dtype}")
    ctx.check_equal(out, a_h < b_h)


@case("complex-refused")
def lt_complex(ctx):
    import torch

    z = ctx.put(np.array([1 + 1j, 2 - 1j], dtype="complex64"))

    def attempt():
        try:
            torch.lt(z, z)
        except RuntimeError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "complex numbers were ordered by lt", "other")


@sweep(
    "{form}-form",
    form=["out", "in-place", "non-contiguous", "broadcast", "mixed-int-float", "empty", "0d"],
)
def lt_forms(ctx, form):
    import torch

    a_np = ctx.rng.integers(-4, 4, size=(6, 8)).astype("float32")
    b_np = ctx.rng.integers(-4, 4, size=(6, 8)).astype("float32")
    a, b = ctx.put(a_np), ctx.put(b_np)
    if form == "out":
        buf = ctx.put(np.zeros((6, 8), dtype=bool))
        ctx.measure(torch.lt, a, b, out=buf, warm=False)
        out, expected = buf, a_np < b_np
    elif form == "in-place":
        # lt_ keeps the input's dtype: 1.0 where true, 0.0 where false.
        out = ctx.measure(a.lt_, b, warm=False)
        ctx.check(out.dtype == torch.float32, f"lt_ changed the dtype to {out.dtype}")
        expected = (a_np < b_np).astype("float32")
    elif form == "non-contiguous":
        view = a.t()
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        out, expected = ctx.measure(torch.lt, view, b.t()), (a_np < b_np).T
    elif form == "broadcast":
        # (6, 1) against (1, 8): an outer comparison, (6, 8).
        col, row = a_np[:, :1], b_np[:1]
        out, expected = ctx.measure(torch.lt, ctx.put(col), ctx.put(row)), col < row
    elif form == "mixed-int-float":
        # int64 against float32 promotes to float32: 1 < 1.5 holds, 2 < 1.5 does not.
        ints = ctx.put(a_np.astype("int64"))
        halves = b_np + 0.5
        out, expected = ctx.measure(torch.lt, ints, ctx.put(halves)), a_np < halves
    elif form == "empty":
        e = ctx.put(np.zeros((0, 8), dtype="float32"))
        out, expected = ctx.measure(torch.lt, e, e), np.zeros((0, 8), dtype=bool)
    else:
        # A 0-d tensor broadcasts like a scalar and keeps the other operand's dtype.
        out = ctx.measure(torch.lt, a, ctx.put(np.array(0.5, dtype="float64")))
        expected = a_np < 0.5
    ctx.check_equal(out, expected)


# The study's kinds of paths (issue #33): the refusals (complex, whose class changed in 2.8;
# shapes that do not broadcast), vmap, and the result used as a boolean mask (indexing):
# x[lt(x, y)] picks exactly the smaller elements, and a masked assignment writes only them.
@sweep("raises-{arg}", arg=["complex", "shape"])
def lt_refusals(ctx, arg):
    import torch
    from _torchhelp import kernel_error, refusal

    if arg == "complex":
        z = ctx.put(np.array([1 + 1j, 2 - 1j], dtype="complex64"))
        refusal(
            ctx, lambda: torch.lt(z, z), kernel_error(ctx), "not implemented for 'ComplexFloat'"
        )
    else:
        a, b = ctx.put(np.zeros(3)), ctx.put(np.zeros(4))
        refusal(ctx, lambda: torch.lt(a, b), RuntimeError, "must match")


@case("vmap-broadcast")
def lt_vmap(ctx):
    import torch
    from _torchhelp import vmap

    a, b = ctx.rng.integers(0, 5, size=(4, 3, 1)), ctx.rng.integers(0, 5, size=(4, 5))
    out = ctx.measure(vmap(ctx)(torch.lt), ctx.put(a), ctx.put(b))
    ctx.check_equal(out, a < b[:, None, :])


@sweep("index-{form}", form=["mask-select", "mask-assign"])
def lt_indexing(ctx, form):
    import torch

    x_np, y_np = ctx.rng.integers(-5, 5, size=(6, 7)), ctx.rng.integers(-5, 5, size=(6, 7))
    x, y = ctx.put(x_np.astype("float64")), ctx.put(y_np.astype("float64"))
    if form == "mask-select":
        ctx.check_equal(ctx.measure(lambda: x[torch.lt(x, y)]), x_np[x_np < y_np])
        return

    def assign():
        x[torch.lt(x, y)] = 100.0
        return x

    expected = np.where(x_np < y_np, 100.0, x_np)
    ctx.check_equal(ctx.measure(assign, warm=False), expected)
