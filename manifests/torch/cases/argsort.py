"""torch.argsort: orders along dims, descending, stable ties, dtypes."""

import numpy as np

from portbench_runner.api import case


@case("float32-last-dim", dtype="float32", shape=(4, 2049))
@case("float64-dim0", dtype="float64", shape=(513, 7), dim=0)
@case("int32-descending", dtype="int32", shape=(1000,), descending=True)
@case("bfloat16", dtype="bfloat16", shape=(256,))
@case("float32-large", dtype="float32", shape=(1_000_000,))
def argsort_orders(ctx, dtype, shape, dim=-1, descending=False):
    import torch

    if dtype == "int32":
        # Distinct values, so the expected order is unique whatever the sort's stability.
        x = ctx.rng.permutation(int(np.prod(shape))).reshape(shape).astype("int32")
    else:
        x = ctx.rng.standard_normal(shape).astype("float32" if dtype == "bfloat16" else dtype)
    tensor = ctx.put(x, dtype=dtype)
    out = ctx.measure(torch.argsort, tensor, dim=dim, descending=descending)
    values = ctx.to_numpy(tensor)
    # Check the order the indices produce, not the indices: ties (bfloat16) may differ.
    gathered = np.take_along_axis(values, ctx.to_numpy(out), axis=dim)
    diffs = np.diff(gathered.astype("float64"), axis=dim)
    ctx.check(
        bool(np.all(diffs <= 0) if descending else np.all(diffs >= 0)),
        "indices do not sort the input",
    )
    ctx.check_equal(
        np.sort(ctx.to_numpy(out), axis=dim), np.sort(np.argsort(values, axis=dim), axis=dim)
    )


@case("stable-ties")
def argsort_stable(ctx):
    import torch

    if not ctx.version_at_least("1.13"):
        ctx.skip(f"torch.argsort has no stable= argument before 1.13 (this is {ctx.version})")
    x = np.array([3, 1, 3, 1, 2, 3], dtype="int64")
    out = ctx.measure(torch.argsort, ctx.put(x), stable=True)
    ctx.check_equal(out, np.argsort(x, kind="stable"))
