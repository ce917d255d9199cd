"""torch.bitwise_not: integers of each width, booleans, floats refused, compiled."""

import numpy as np
from _torchhelp import ALL_INTS, BOOL, EAGER_COMPILED, unary

from portbench_runner.api import case, sweep


@case("int32", dtype="int32")
@case("int64", dtype="int64")
@case("uint8", dtype="uint8")
@case("int8", dtype="int8")
@case("bool", dtype="bool")
@case("large-int32", dtype="int32", shape=(1_000_000,))
def bitwise_not_values(ctx, dtype, shape=(1024,)):
    import torch

    lo, hi = {"uint8": (0, 256), "int8": (-128, 128)}.get(dtype, (-(2**30), 2**30))
    unary(ctx, torch.bitwise_not, np.invert, dtype=dtype, shape=shape, lo=lo, hi=hi)


@case("float-is-refused")
def bitwise_not_float(ctx):
    import torch

    x = ctx.put(np.ones(3, dtype="float32"))

    def attempt():
        try:
            torch.bitwise_not(x)
        except (RuntimeError, TypeError):
            return True
        return False

    ctx.check(ctx.measure(attempt), "bitwise_not accepted a float tensor", category="type")


@case("compiled")
def bitwise_not_compiled(ctx):
    import torch

    x = np.arange(-8, 8, dtype="int32")
    ctx.check_equal(ctx.measure(ctx.compiled(torch.bitwise_not), ctx.put(x)), np.invert(x))


# Every integer width and bool, each mode; the extremes of each width (bitwise_not(min) = max).
@sweep("{dtype}-{mode}-sweep", dtype=ALL_INTS + BOOL, mode=EAGER_COMPILED)
def bitwise_not_dtypes(ctx, dtype, mode):
    import torch

    if dtype == "bool":
        x = ctx.rng.random(130) > 0.5
    else:
        info = np.iinfo(dtype)
        x = ctx.rng.integers(info.min, info.max, size=128, endpoint=True).astype(dtype)
        x = np.concatenate([x, np.array([info.min, info.max], dtype=dtype)])
    out = ctx.measure(ctx.in_mode(mode, torch.bitwise_not), ctx.put(x))
    ctx.check_equal(out, np.invert(x))


@sweep("{form}-sweep", form=["out", "in-place", "non-contiguous", "empty", "scalar", "operator"])
def bitwise_not_forms(ctx, form):
    import torch

    x_np = ctx.rng.integers(-1000, 1000, size=(8, 12)).astype("int32")
    x = ctx.put(x_np)
    expected = np.invert(x_np)
    if form == "out":
        buf = ctx.put(np.zeros((8, 12), dtype="int32"))
        ctx.measure(torch.bitwise_not, x, out=buf, warm=False)
        result = buf
    elif form == "in-place":
        result = ctx.measure(torch.Tensor.bitwise_not_, x, warm=False)
        ctx.check(result.data_ptr() == x.data_ptr(), "bitwise_not_ made a new tensor", "other")
    elif form == "non-contiguous":
        view = x[:, ::3]
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        result, expected = ctx.measure(torch.bitwise_not, view), expected[:, ::3]
    elif form == "operator":
        result = ctx.measure(lambda t: ~t, x)  # Tensor.__invert__ is the same kernel
    else:
        shaped = np.zeros((0, 3), "int32") if form == "empty" else np.array(5, "int32")
        result, expected = ctx.measure(torch.bitwise_not, ctx.put(shaped)), np.invert(shaped)
    ctx.check_equal(result, expected)


# The study's kinds of paths (issue #33): the refusal of floats with its class (RuntimeError
# until 2.7, NotImplementedError from 2.8) and message, vmap over a batch, and indexing
# forms: the in-place method on a row, a strided slice and a boolean mask changes only those.
@case("raises-float")
def bitwise_not_raises(ctx):
    import torch
    from _torchhelp import kernel_error, refusal

    x = ctx.put(np.ones(3, dtype="float32"))
    refusal(ctx, lambda: torch.bitwise_not(x), kernel_error(ctx), "not implemented for 'Float'")


@sweep("vmap-{dtype}", dtype=["int32", "uint8", "bool"])
def bitwise_not_vmap(ctx, dtype):
    import torch
    from _torchhelp import draw, vmap

    x = draw(ctx, (6, 10), dtype, 0, 200)
    out = ctx.measure(vmap(ctx)(torch.bitwise_not), ctx.put(x))
    ctx.check_equal(out, np.invert(x))


@sweep("index-{form}", form=["row", "slice-step", "mask"])
def bitwise_not_indexing(ctx, form):
    x_np = ctx.rng.integers(-100, 100, size=(5, 6)).astype("int32")
    x = ctx.put(x_np)
    expected = x_np.copy()
    if form == "row":
        ctx.measure(x[2].bitwise_not_, warm=False)
        expected[2] = np.invert(expected[2])
    elif form == "slice-step":
        ctx.measure(x[:, ::2].bitwise_not_, warm=False)
        expected[:, ::2] = np.invert(expected[:, ::2])
    else:
        mask_np = x_np > 0
        mask = ctx.put(mask_np)

        def masked():
            x[mask] = x[mask].bitwise_not()  # index_put_ of the masked elements

        ctx.measure(masked, warm=False)
        expected[mask_np] = np.invert(expected[mask_np])
    ctx.check_equal(x, expected)
