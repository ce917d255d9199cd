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


# The study's kinds of paths (issue #33): the documented refusals (class and message), the
# full grid of beta and alpha (beta = 0 ignores M, NaN included, as documented), vmap over
# a batch of vectors, and second derivatives.
@sweep("raises-{arg}", arg=["2d-vector", "bool-beta-on-float", "float-alpha-on-int", "shape"])
def addr_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    f = ctx.put(np.zeros((3, 3), dtype="float32"))
    v = ctx.put(np.ones(3, dtype="float32"))
    i = ctx.put(np.zeros((2, 2), dtype="int64"))
    iv = ctx.put(np.ones(2, dtype="int64"))
    attempt, fragment = {
        "2d-vector": (lambda: torch.addr(f, v[:, None], v), "Expected 1-D argument vec1"),
        "bool-beta-on-float": (
            lambda: torch.addr(f, v, v, beta=True),
            "Boolean beta only supported for Boolean results",
        ),
        "float-alpha-on-int": (
            lambda: torch.addr(i, iv, iv, alpha=0.5),
            "alpha must not be a floating point number",
        ),
        "shape": (lambda: torch.addr(f[:, :2], v, v), "must match"),
    }[arg]
    refusal(ctx, attempt, RuntimeError, fragment)


@sweep("flags-beta{beta}-alpha{alpha}", beta=["0", "1", "2.5"], alpha=["0", "1", "-1.5"])
def addr_grid(ctx, beta, alpha):
    import torch

    b, a = float(beta), float(alpha)
    m_np = ctx.rng.standard_normal((5, 4))
    if b == 0:
        m_np[1, 2], m_np[3, 0] = np.nan, np.inf  # documented: not propagated when beta is 0
    v1, v2 = ctx.rng.standard_normal(5), ctx.rng.standard_normal(4)
    out = ctx.measure(torch.addr, ctx.put(m_np), ctx.put(v1), ctx.put(v2), beta=b, alpha=a)
    expected = (0.0 if b == 0 else b * m_np) + a * np.outer(v1, v2)
    ctx.check_close(out, expected, dtype="float64")


@sweep("vmap-{dtype}", dtype=["float32", "int64"])
def addr_vmap(ctx, dtype):
    import torch
    from _torchhelp import RTOL, draw, placed, vmap

    m, m_h = placed(ctx, draw(ctx, (4, 6, 5), dtype, -5, 5), dtype)
    v1, v1_h = placed(ctx, draw(ctx, (4, 6), dtype, -5, 5), dtype)
    v2, v2_h = placed(ctx, draw(ctx, (5,), dtype, -5, 5), dtype)
    # A batch of (M, vec1) against one vec2: in_dims None leaves vec2 unbatched.
    out = ctx.measure(vmap(ctx)(torch.addr, in_dims=(0, 0, None)), m, v1, v2)
    expected = m_h + v1_h[:, :, None] * v2_h[None, None, :]
    if dtype == "int64":
        ctx.check_equal(out, expected)
    else:
        ctx.check_close(out, expected, rtol=RTOL[dtype] * 10, atol=RTOL[dtype] * 10)


@case("grad2-gradgradcheck")
def addr_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    gradgradcheck(
        ctx,
        lambda m, a, b: torch.addr(m, a, b, beta=0.5, alpha=2.0) ** 2,
        ctx.rng.standard_normal((3, 4)),
        ctx.rng.standard_normal(3),
        ctx.rng.standard_normal(4),
    )
