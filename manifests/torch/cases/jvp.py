"""torch.autograd.functional.jvp: Jacobian-vector products of elementwise, matrix and
multi-input functions, against analytic derivatives."""

import numpy as np
from _torchhelp import COMPLEXES, EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


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


# Every dtype autograd differentiates (float16/bfloat16 through the double-backward trick
# jvp uses, float32/64 and complex), for a smooth elementwise function; and jvp of a
# torch.compile'd function in float32/float64. FINDING (torch 2.x, CPU): the compiled cases
# fail, "torch.compile with aot_autograd does not currently support double backward", which
# jvp needs; compiling the whole jvp call fails the same way. Two dtypes record it, not six.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=HALF_FLOATS + FULL_FLOATS + COMPLEXES,
    mode=EAGER_COMPILED,
    exclude=[
        {"dtype": "float16", "mode": "compiled"},
        {"dtype": "bfloat16", "mode": "compiled"},
        {"dtype": "complex64", "mode": "compiled"},
        {"dtype": "complex128", "mode": "compiled"},
    ],
)
def jvp_dtypes(ctx, dtype, mode):
    import torch
    from _torchhelp import RTOL, draw, placed
    from torch.autograd.functional import jvp

    x, x_h = placed(ctx, draw(ctx, (64,), dtype, -1, 1), dtype)
    v, v_h = placed(ctx, draw(ctx, (64,), dtype, -1, 1), dtype)

    def f(t):
        return torch.sin(t) * t

    # torch.compile of the function jvp differentiates (jvp itself runs autograd eagerly).
    fn = ctx.in_mode(mode, f)
    out, tangent = ctx.measure(jvp, fn, x, v)
    r = RTOL[dtype] * 5
    ctx.check_close(out, np.sin(x_h) * x_h, rtol=r, atol=r, what="output")
    ctx.check_close(tangent, (np.cos(x_h) * x_h + np.sin(x_h)) * v_h, rtol=r, atol=r)


@sweep(
    "{form}-sweep",
    form=[
        "create-graph",
        "strict-refuses-independent",
        "default-v-scalar",
        "tuple-outputs",
        "against-jacobian",
    ],
)
def jvp_forms(ctx, form):
    import torch
    from torch.autograd.functional import jacobian, jvp

    x_np = ctx.rng.standard_normal(5)
    x = ctx.put(x_np)
    v_np = ctx.rng.standard_normal(5)
    v = ctx.put(v_np)
    if form == "create-graph":
        # With create_graph the tangent is differentiable: d/dx sum(exp(x) * v) = exp(x) * v.
        xg = ctx.put(x_np, requires_grad=True)
        _, tangent = ctx.measure(jvp, torch.exp, xg, v, create_graph=True, warm=False)
        (grad,) = torch.autograd.grad(tangent.sum(), xg)
        ctx.check_close(grad, np.exp(x_np) * v_np, dtype="float64")
    elif form == "strict-refuses-independent":

        def attempt():
            try:
                jvp(lambda t: torch.ones(3, dtype=t.dtype, device=t.device), x, v, strict=True)
            except RuntimeError:
                return True
            return False

        ctx.check(ctx.measure(attempt), "strict=True accepted an output independent of x", "other")
    elif form == "default-v-scalar":
        # v may be left out only for a one-element input.
        s = ctx.put(np.array(0.7))
        _, tangent = ctx.measure(jvp, torch.sin, s)
        ctx.check_close(tangent, np.cos(0.7), dtype="float64")
    elif form == "tuple-outputs":
        _, (t1, t2) = ctx.measure(jvp, lambda t: (t * 2, t**2), x, v)
        ctx.check_close(t1, 2 * v_np, dtype="float64", what="first tangent")
        ctx.check_close(t2, 2 * x_np * v_np, dtype="float64", what="second tangent")
    else:
        w_np = ctx.rng.standard_normal((4, 5))
        w = ctx.put(w_np)

        def f(t):
            return torch.tanh(w @ t)

        _, tangent = ctx.measure(jvp, f, x, v)
        ctx.check_close(
            tangent, ctx.to_numpy(jacobian(f, x)) @ v_np, dtype="float64", kind="reduction"
        )
