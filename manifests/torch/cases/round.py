"""torch.round: half to even, decimals, dtypes, integers unchanged, compiled."""

import numpy as np
from _torchhelp import FLOAT_DTYPES, INT_DTYPES, MODES, draw, is_exact, placed, tol, unary

from portbench_runner.api import case, sweep


@case("float32", dtype="float32")
@case("float64", dtype="float64")
@case("bfloat16", dtype="bfloat16")
@case("large", dtype="float32", shape=(1_000_000,))
def round_values(ctx, dtype, shape=(1024,)):
    import torch

    unary(ctx, torch.round, np.round, dtype=dtype, shape=shape, lo=-100, hi=100, rtol=0.0)


@case("half-to-even")
def round_half_even(ctx):
    import torch

    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5], dtype="float32")
    ctx.check_equal(ctx.measure(torch.round, ctx.put(x)), [0.0, 2.0, 2.0, -0.0, -2.0])


@case("decimals")
def round_decimals(ctx):
    import torch

    if not ctx.version_at_least("1.11"):
        ctx.skip(f"round(decimals=) arrived in torch 1.11 (this is {ctx.version})")
    x = np.array([1.2345, -2.71828, 3.14159], dtype="float64")
    ctx.check_close(
        ctx.measure(torch.round, ctx.put(x), decimals=2), np.round(x, 2), dtype="float64"
    )


@case("compiled")
def round_compiled(ctx):
    import torch

    unary(ctx, torch.round, np.round, compiled=True, lo=-10, hi=10, rtol=0.0)


# Every dtype torch.round takes on the CPU: floats round half to even; integers come back
# unchanged in their own dtype. Bool and complex are refused (a case below).
@sweep("{dtype}-{mode}-sweep", dtype=FLOAT_DTYPES + INT_DTYPES, mode=MODES)
def round_dtypes(ctx, dtype, mode):
    import torch

    # Quarter steps put exact .5 ties among the inputs in every float width.
    lo, hi = (0, 100) if dtype == "uint8" else (-100, 100)
    raw = draw(ctx, (257,), dtype, lo, hi)
    if not is_exact(dtype):
        raw = (np.round(raw.astype("float64") * 4) / 4).astype(raw.dtype)
    x, x_h = placed(ctx, raw, dtype)
    out = ctx.measure(ctx.in_mode(mode, torch.round), x)
    ctx.check(str(out.dtype) == f"torch.{dtype}", f"round returned {out.dtype}")
    if is_exact(dtype):
        ctx.check_equal(out, x_h)
    else:
        ctx.check_equal(ctx.to_numpy(out).astype("float64"), np.round(x_h))


@sweep("decimals-{dtype}-sweep", dtype=("bfloat16", "float32", "float64"))
def round_decimals_dtypes(ctx, dtype):
    import torch

    if not ctx.version_at_least("1.11"):
        ctx.skip(f"round(decimals=) arrived in torch 1.11 (this is {ctx.version})")
    x, x_h = placed(ctx, draw(ctx, (128,), dtype, -50, 50), dtype)
    out = ctx.measure(torch.round, x, decimals=1)
    # torch rounds x * 10 in the dtype, so a value next to a tie may land one step (0.1) from
    # NumPy's float64 answer: every element is the reference or one step off, and few are off.
    got = np.asarray(ctx.to_numpy(out), dtype="float64")
    ref = np.round(x_h, 1)
    r = tol(dtype)["rtol"]
    diff = np.abs(got - ref)
    slack = r * np.abs(ref) + r
    exact = diff <= slack
    one_step = np.abs(diff - 0.1) <= slack + 1e-6
    ctx.check(bool(np.all(exact | one_step)), f"round(decimals=1) off by {diff.max()}")
    ctx.check(int((~exact).sum()) <= 3, f"{int((~exact).sum())} of 128 values a step off")


@case("bool-and-complex-refused")
def round_refused(ctx):
    import torch

    values = (ctx.put(np.array([True, False])), ctx.put(np.array([1.5 + 0.5j], "complex64")))

    def attempt():
        refused = 0
        for v in values:
            try:
                torch.round(v)
            except RuntimeError:
                refused += 1
        return refused

    ctx.check(ctx.measure(attempt) == 2, "round accepted bool or complex", "other")


@sweep("{form}-form", form=["out", "in-place", "non-contiguous", "empty", "0d", "grad-is-zero"])
def round_forms(ctx, form):
    import torch

    x_np = (np.round(ctx.rng.uniform(-8, 8, size=(6, 8)) * 2) / 2).astype("float32")
    x = ctx.put(x_np)
    expected = np.round(x_np.astype("float64"))
    if form == "out":
        buf = ctx.put(np.zeros((6, 8), dtype="float32"))
        ctx.measure(torch.round, x, out=buf, warm=False)
        out = buf
    elif form == "in-place":
        out = ctx.measure(x.round_, warm=False)
        ctx.check(out.data_ptr() == x.data_ptr(), "round_ did not work in place", "other")
    elif form == "non-contiguous":
        view = x[:, ::2]
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        out, expected = ctx.measure(torch.round, view), expected[:, ::2]
    elif form == "empty":
        out = ctx.measure(torch.round, ctx.put(np.zeros((0, 3), dtype="float32")))
        expected = np.zeros((0, 3))
    elif form == "0d":
        out, expected = ctx.measure(torch.round, ctx.put(np.array(2.5, "float32"))), 2.0
    else:
        # round is piecewise constant: its gradient is zero everywhere autograd defines it.
        xg = ctx.put(x_np + 0.25, requires_grad=True)

        def backward():
            xg.grad = None
            torch.round(xg).sum().backward()
            return xg.grad

        out, expected = ctx.measure(backward), np.zeros((6, 8))
    ctx.check_equal(ctx.to_numpy(out).astype("float64"), expected)


# The study's kinds of paths (issue #33): the refusals with their class (RuntimeError until
# 2.7, NotImplementedError from 2.8) and message (bool, complex, integers with decimals=),
# the grid of decimals, vmap, and second derivatives (zero, away from the jumps).
@sweep("raises-{arg}", arg=["bool", "complex", "int-decimals"])
def round_refusals(ctx, arg):
    import torch
    from _torchhelp import kernel_error, refusal

    if arg == "int-decimals" and not ctx.version_at_least("1.11"):
        ctx.skip(f"round(decimals=) arrived in torch 1.11 (this is {ctx.version})")
    value, kwargs, fragment = {
        "bool": (np.array([True, False]), {}, "not implemented for 'Bool'"),
        "complex": (np.array([1.5 + 0.5j], "complex64"), {}, "not implemented for 'ComplexFloat'"),
        "int-decimals": (
            np.array([12, 15], "int64"),
            {"decimals": 1},
            "not implemented for 'Long'",
        ),
    }[arg]
    x = ctx.put(value)
    refusal(ctx, lambda: torch.round(x, **kwargs), kernel_error(ctx), fragment)


@sweep("flags-decimals{decimals}", decimals=["-1", "0", "1", "2"])
def round_grid(ctx, decimals):
    import torch

    d = int(decimals)
    if d != 0 and not ctx.version_at_least("1.11"):
        ctx.skip(f"round(decimals=) arrived in torch 1.11 (this is {ctx.version})")
    # Values a quarter-step away from every tie at this precision: no rounding-boundary luck.
    k = ctx.rng.integers(-400, 400, size=64)
    x = (k + 0.25 + 0.5 * (ctx.rng.random(64) > 0.5)) / 10.0**d
    out = ctx.measure(torch.round, ctx.put(x), decimals=d)
    ctx.check_close(out, np.round(x, d), dtype="float64")


@case("vmap-batch")
def round_vmap(ctx):
    import torch
    from _torchhelp import vmap

    x = (np.round(ctx.rng.uniform(-20, 20, size=(4, 30)) * 4) / 4).astype("float32")
    out = ctx.measure(vmap(ctx)(torch.round), ctx.put(x))
    ctx.check_equal(out, np.round(x))


@case("grad2-gradgradcheck")
def round_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    x = np.arange(-4, 4) + 0.25  # far from the .5 jumps for the finite differences
    gradgradcheck(ctx, lambda t: torch.round(t) * t**2, x)
