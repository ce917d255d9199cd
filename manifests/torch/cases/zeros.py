"""torch.zeros: shapes (scalar, empty, large), dtypes, on the target device."""

import numpy as np

from portbench_runner.api import case, sweep


@case("float32-2d", shape=(64, 32), dtype="float32")
@case("float64-3d", shape=(4, 5, 6), dtype="float64")
@case("int64", shape=(100,), dtype="int64")
@case("bool", shape=(7,), dtype="bool")
@case("bfloat16", shape=(16, 16), dtype="bfloat16")
@case("scalar", shape=(), dtype="float32")
@case("empty", shape=(0, 3), dtype="float32")
@case("large", shape=(2000, 2000), dtype="float32")
def zeros_values(ctx, shape, dtype):
    import torch

    out = ctx.measure(torch.zeros, shape, dtype=getattr(torch, dtype), device=ctx.device)
    ctx.check(out.dtype == getattr(torch, dtype), f"dtype {out.dtype}, not {dtype}")
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype("float64"), np.zeros(shape))


@case("requires-grad")
def zeros_grad(ctx):
    import torch

    out = ctx.measure(torch.zeros, 3, device=ctx.device, requires_grad=True)
    ctx.check(
        out.requires_grad and out.is_leaf, "zeros(requires_grad=True) is not a leaf requiring grad"
    )


@sweep("{dtype}-sweep", dtype=["float16", "complex64", "int8", "uint8"])
def zeros_dtypes(ctx, dtype):
    import torch

    out = ctx.measure(torch.zeros, (3, 4), dtype=getattr(torch, dtype), device=ctx.device)
    ctx.check_equal(out, np.zeros((3, 4), dtype=dtype))


@sweep("like-{dtype}", dtype=["float16", "float64", "int64"])
def zeros_like_dtypes(ctx, dtype):
    import torch

    # zeros_like(float64 input, dtype=...): a cast the study's TPU report failed on.
    x = ctx.put(ctx.rng.standard_normal((3, 4)))
    out = ctx.measure(torch.zeros_like, x, dtype=getattr(torch, dtype))
    ctx.check_equal(out, np.zeros((3, 4), dtype=dtype))


# The study's kinds of paths (issue #33): the documented refusals, class and message (a
# negative size; a dtype that is no torch.dtype; a float size).
@sweep("raises-{arg}", arg=["negative-size", "dtype-not-dtype", "float-size"])
def zeros_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    dev = ctx.device
    attempt, error, fragment = {
        "negative-size": (lambda: torch.zeros(-1, device=dev), RuntimeError, "negative"),
        "dtype-not-dtype": (
            lambda: torch.zeros(3, dtype="float32", device=dev),
            TypeError,
            "dtype",
        ),
        "float-size": (lambda: torch.zeros(2.5, device=dev), TypeError, "tuple of ints"),
    }[arg]
    refusal(ctx, attempt, error, fragment)
