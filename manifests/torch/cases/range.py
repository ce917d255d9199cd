"""torch.range (deprecated, end-inclusive): values, steps, dtypes; compared with arange."""

import warnings

import numpy as np

from portbench_runner.api import case


@case("int-steps", args=(0, 10, 1))
@case("float-step", args=(0.0, 1.0, 0.25))
@case("negative-step", args=(5, -5, -2.5))
@case("large", args=(0, 999_999, 1))
def range_values(ctx, args):
    import torch

    start, end, step = args
    with warnings.catch_warnings():
        # torch.range is deprecated (it includes `end`); the deprecation is not a failure.
        warnings.simplefilter("ignore")
        out = ctx.measure(torch.range, start, end, step, device=ctx.device)
    count = int(np.floor((end - start) / step)) + 1
    ctx.check_close(
        out,
        start + step * np.arange(count),
        dtype="float32",
        rtol=1e-6,
        atol=1e-6 * max(abs(start), abs(end), 1),
    )


@case("float64-dtype")
def range_dtype(ctx):
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = ctx.measure(torch.range, 1, 4, dtype=torch.float64, device=ctx.device)
    ctx.check(out.dtype == torch.float64, f"dtype {out.dtype}")
    ctx.check_equal(out, [1.0, 2.0, 3.0, 4.0])
