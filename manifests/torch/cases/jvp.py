"""torch.autograd.functional.jvp: Jacobian-vector products of elementwise, matrix and
multi-input functions, against analytic derivatives."""

import numpy as np

from portbench_runner.api import case


@case("elementwise-exp")
@case("elementwise-exp-float64", dtype="float64")
def jvp_exp(ctx, dtype="float32"):
    import torch
    from torch.autograd.functional import jvp

    x = ctx.rng.standard_normal(64).astype(dtype)
    v = ctx.rng.standard_normal(64).astype(dtype)
    out, tangent = ctx.measure(jvp, torch.exp, ctx.put(x), ctx.put(v))
    x64, v64 = x.astype("float64"), v.astype("float64")
    ctx.check_close(out, np.exp(x64), dtype=dtype, rtol=2e-5 if dtype == "float32" else None)
    ctx.check_close(
        tangent, np.exp(x64) * v64, dtype=dtype, rtol=2e-5 if dtype == "float32" else None
    )


@case("matrix-function")
def jvp_matmul(ctx):
    from torch.autograd.functional import jvp

    w = ctx.rng.standard_normal((5, 8))
    x = ctx.rng.standard_normal(8)
    v = ctx.rng.standard_normal(8)
    weight = ctx.put(w)
    _, tangent = ctx.measure(jvp, lambda t: weight @ t, ctx.put(x), ctx.put(v))
    ctx.check_close(tangent, w @ v, dtype="float64")


@case("two-inputs")
def jvp_two_inputs(ctx):
    from torch.autograd.functional import jvp

    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    va, vb = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    _, tangent = ctx.measure(
        jvp, lambda x, y: x * y, (ctx.put(a), ctx.put(b)), (ctx.put(va), ctx.put(vb))
    )
    ctx.check_close(tangent, va * b + a * vb, dtype="float64")
