"""torch.range (deprecated, end-inclusive): values, steps, dtypes; compared with arange."""

import warnings

import numpy as np
from _torchhelp import FLOAT_DTYPES, INT_DTYPES, MODES

from portbench_runner.api import case, sweep


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


def _quiet_range(*args, **kwargs):
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecation warning is documented, not a failure
        return torch.range(*args, **kwargs)


# Every dtype torch.range fills on the CPU (complex and bool are refused), eager and compiled.
# Integer dtypes count 1, 3, ..., 19; float dtypes step by 0.5 (exact in every width).
@sweep("{dtype}-{mode}-sweep", dtype=FLOAT_DTYPES + INT_DTYPES, mode=MODES)
def range_dtypes(ctx, dtype, mode):
    import torch

    is_int = dtype.startswith(("int", "uint"))
    start, end, step = (1, 19, 2) if is_int else (-2.0, 8.0, 0.5)
    dt, dev = getattr(torch, dtype), ctx.device
    out = ctx.measure(
        ctx.in_mode(mode, lambda: _quiet_range(start, end, step, dtype=dt, device=dev))
    )
    ctx.check(out.dtype == dt, f"range gave {out.dtype}, not {dtype}")
    expected = np.arange(start, end + step / 2, step)  # end is included
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype("float64"), expected)


@sweep(
    "{form}-form",
    form=["out", "single-element", "end-not-reached", "requires-grad", "refuses-wrong-sign"],
)
def range_forms(ctx, form):
    import torch

    if form == "out":
        buf = ctx.put(np.zeros(5, dtype="float64"))
        ctx.measure(_quiet_range, 0, 4, out=buf, warm=False)
        out, expected = buf, np.arange(5.0)
    elif form == "single-element":
        out, expected = ctx.measure(_quiet_range, 3, 3, device=ctx.device), [3.0]
    elif form == "end-not-reached":
        # 0, 0.3, 0.6, 0.9: end=1 is included only when a step lands on it.
        out = ctx.measure(_quiet_range, 0, 1, 0.3, dtype=torch.float64, device=ctx.device)
        expected = [0.0, 0.3, 0.6, 0.9]
    elif form == "requires-grad":
        out = ctx.measure(_quiet_range, 0, 3, device=ctx.device, requires_grad=True)
        ctx.check(out.requires_grad and out.is_leaf, "range(requires_grad=True) is no grad leaf")
        expected = [0.0, 1.0, 2.0, 3.0]
    else:

        def attempt():
            try:
                _quiet_range(0, -3, 1, device=ctx.device)
            except RuntimeError:
                return True
            return False

        ctx.check(ctx.measure(attempt), "range(0, -3, 1) did not refuse", "other")
        return
    ctx.check_close(out, np.asarray(expected, dtype="float64"), dtype="float64")


# The study's kinds of paths (issue #33): the refusals with class and message (a zero step;
# complex and bool, whose class changed in 2.8).
@sweep("raises-{arg}", arg=["zero-step", "complex", "bool"])
def range_refusals(ctx, arg):
    import torch
    from _torchhelp import kernel_error, refusal

    attempt, error, fragment = {
        "zero-step": (
            lambda: _quiet_range(0, 3, 0, device=ctx.device),
            RuntimeError,
            "step must be nonzero",
        ),
        "complex": (
            lambda: _quiet_range(0, 3, 1, dtype=torch.complex64, device=ctx.device),
            kernel_error(ctx),
            "not implemented for 'ComplexFloat'",
        ),
        "bool": (
            lambda: _quiet_range(0, 1, 1, dtype=torch.bool, device=ctx.device),
            kernel_error(ctx),
            "not implemented for 'Bool'",
        ),
    }[arg]
    refusal(ctx, attempt, error, fragment)
