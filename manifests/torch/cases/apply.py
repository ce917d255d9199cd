"""torch.Tensor.apply_: applies a Python function to each element in place (CPU tensors only,
as documented: on other devices it is expected to raise)."""

import numpy as np

from portbench_runner.api import case, sweep


@case("float32-square", dtype="float32")
@case("float64-affine", dtype="float64", fn="affine")
@case("int64-increment", dtype="int64", fn="increment")
def apply_values(ctx, dtype, fn="square"):
    funcs = {"square": lambda v: v * v, "affine": lambda v: 2 * v + 1, "increment": lambda v: v + 1}
    x = (ctx.rng.standard_normal(256) * 10).astype(dtype)
    tensor = ctx.put(x)
    out = ctx.measure(tensor.apply_, funcs[fn], warm=False)
    ctx.check(out is tensor, "apply_ did not return its own tensor")
    ctx.check_close(
        out,
        np.vectorize(funcs[fn])(x).astype("float64"),
        dtype=dtype if dtype != "int64" else None,
        rtol=1e-6,
        atol=1e-6,
    )


@case("large-in-place")
def apply_large(ctx):
    x = ctx.put(np.ones(100_000, dtype="float32"))
    ctx.measure(x.apply_, lambda v: v + 2, warm=False)
    ctx.check_equal(ctx.to_numpy(x)[:3], [3.0, 3.0, 3.0])
