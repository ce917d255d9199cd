"""torch.tensor: from lists, nested lists, NumPy arrays (copied), scalars, dtypes, device."""

import numpy as np

from portbench_runner.api import case


@case("from-list", value=[1.5, 2.5, 3.5])
@case("nested", value=[[1, 2], [3, 4]])
@case("scalar", value=7.25)
@case("bools", value=[True, False])
def tensor_from_python(ctx, value):
    import torch

    out = ctx.measure(torch.tensor, value, device=ctx.device)
    ctx.check_equal(out, np.array(value))


@case("from-numpy-float64", dtype="float64")
@case("to-bfloat16", dtype="bfloat16")
@case("large", dtype="float32", n=1_000_000)
def tensor_from_numpy(ctx, dtype, n=4096):
    import torch

    x = ctx.rng.standard_normal(n).astype("float32" if dtype == "bfloat16" else dtype)
    out = ctx.measure(torch.tensor, x, dtype=getattr(torch, dtype), device=ctx.device)
    ctx.check_close(out, x.astype("float64"), dtype=dtype)


@case("copies-its-input")
def tensor_copies(ctx):
    import torch

    x = np.arange(4, dtype="float32")
    out = ctx.measure(torch.tensor, x, device=ctx.device, warm=False)
    x[0] = 99.0
    ctx.check(
        float(ctx.to_numpy(out)[0]) == 0.0,
        "torch.tensor shares memory with its NumPy input",
        category="other",
    )
