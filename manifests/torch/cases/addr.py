"""torch.addr: beta * M + alpha * outer(v1, v2), dtypes, alpha/beta, integer and bool."""

import numpy as np
from _torchhelp import RTOL, draw, placed

from portbench_runner.api import case, sweep


@case("float32", dtype="float32")
@case("float64-alpha-beta", dtype="float64", alpha=0.5, beta=2.0)
@case("bfloat16", dtype="bfloat16")
@case("int64", dtype="int64", alpha=2, beta=3)
@case("large", dtype="float32", n=2000)
def addr_values(ctx, dtype, alpha=1, beta=1, n=64):
    import torch

    m, m_h = placed(ctx, draw(ctx, (n, n), dtype, -5, 5), dtype)
    v1, v1_h = placed(ctx, draw(ctx, (n,), dtype, -5, 5), dtype)
    v2, v2_h = placed(ctx, draw(ctx, (n,), dtype, -5, 5), dtype)
    out = ctx.measure(torch.addr, m, v1, v2, alpha=alpha, beta=beta)
    expected = beta * m_h + alpha * np.outer(v1_h, v2_h)
    if dtype == "int64":
        ctx.check_equal(out, expected)
    else:
        ctx.check_close(out, expected, rtol=RTOL[dtype] * 10, atol=RTOL[dtype] * 10)


@case("bool-is-or-and")
def addr_bool(ctx):
    import torch

    m = ctx.put(np.array([[True, False], [False, False]]))
    v1 = ctx.put(np.array([True, False]))
    v2 = ctx.put(np.array([False, True]))
    ctx.check_equal(ctx.measure(torch.addr, m, v1, v2), [[True, True], [False, False]])


# The study's tests sweep every float, complex and integer dtype (its TPU report fails
# float16, bfloat16, float32, complex64/128 and every integer width).
@sweep(
    "{dtype}-sweep",
    dtype=["float16", "float32", "complex64", "complex128", "int8", "int16", "int32", "uint8"],
)
def addr_dtypes(ctx, dtype):
    import torch

    lo, hi = (0, 4) if dtype == "uint8" else (-4, 4)
    m, m_h = placed(ctx, draw(ctx, (50, 50), dtype, lo, hi), dtype)
    v1, v1_h = placed(ctx, draw(ctx, (50,), dtype, lo, hi), dtype)
    v2, v2_h = placed(ctx, draw(ctx, (50,), dtype, 0, 3), dtype)
    out = ctx.measure(torch.addr, m, v1, v2)
    expected = m_h + np.outer(v1_h, v2_h)
    if dtype.startswith(("int", "uint")):
        ctx.check_equal(out, expected.astype(dtype))  # wraps like the dtype does
    else:
        ctx.check_close(out, expected, rtol=RTOL[dtype] * 10, atol=RTOL[dtype] * 10)


@sweep("out-{dtype}", dtype=["float32", "int64"])
def addr_out(ctx, dtype):
    import torch

    m, m_h = placed(ctx, draw(ctx, (8, 8), dtype), dtype)
    v, v_h = placed(ctx, draw(ctx, (8,), dtype), dtype)
    out = ctx.put(np.zeros((8, 8), dtype=dtype))
    result = ctx.measure(torch.addr, m, v, v, out=out, warm=False)
    ctx.check(result.data_ptr() == out.data_ptr(), "out= returns the tensor it was given", "other")
    ctx.check_close(out, m_h + np.outer(v_h, v_h), rtol=1e-5, atol=1e-5)
