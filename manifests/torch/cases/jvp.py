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


# The study's kinds of paths (issue #33): the refusals with class and message (a tangent of
# the wrong size, a function returning no tensor, a missing tangent for a vector input),
# the transforms (torch.func.jvp against autograd.functional.jvp; vmap of torch.func.jvp
# over the basis gives the Jacobian; a second-order product, the Hessian times a vector, as
# jvp of a gradient), and the full grid of create_graph x strict.
@sweep("raises-{arg}", arg=["tangent-size", "output-not-tensor", "tangent-missing"])
def jvp_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal
    from torch.autograd.functional import jvp

    x = ctx.put(np.zeros(3))
    attempt, error, fragment = {
        "tangent-size": (
            lambda: jvp(torch.exp, x, ctx.put(np.zeros(4))),
            RuntimeError,
            "v has invalid size",
        ),
        "output-not-tensor": (
            lambda: jvp(lambda t: 3, x, x),
            TypeError,
            "must be either a Tensor or a tuple of Tensors",
        ),
        "tangent-missing": (
            lambda: jvp(torch.exp, x),
            RuntimeError,
            "can only be None if the input to the user-provided function is a single Tensor",
        ),
    }[arg]
    refusal(ctx, attempt, error, fragment)


@sweep("vmap-{form}", form=["func-jvp-agrees", "jacobian-by-vmap"])
def jvp_transforms(ctx, form):
    import torch
    from _torchhelp import vmap

    func_jvp = ctx.require("torch.func.jvp")
    vmap(ctx)  # both forms need torch.func
    w_np = ctx.rng.standard_normal((4, 5))
    x_np, v_np = ctx.rng.standard_normal(5), ctx.rng.standard_normal(5)
    w = ctx.put(w_np)

    def f(t):
        return torch.tanh(w @ t)

    d = 1 - np.tanh(w_np @ x_np) ** 2
    if form == "func-jvp-agrees":
        _, tangent = ctx.measure(func_jvp, f, (ctx.put(x_np),), (ctx.put(v_np),))
        ctx.check_close(tangent, d * (w_np @ v_np), dtype="float64", kind="reduction")
        return
    x = ctx.put(x_np)
    basis = ctx.put(np.eye(5))
    columns = ctx.measure(vmap(ctx)(lambda e: func_jvp(f, (x,), (e,))[1]), basis)
    ctx.check_close(columns.T, d[:, None] * w_np, dtype="float64", kind="reduction")


@case("grad2-hessian-vector")
def jvp_hvp(ctx):
    import torch
    from torch.autograd.functional import jvp

    # H v of f(x) = sum(x^4) / 4 + x0 * x1: jvp of the gradient function (double backward).
    x_np, v_np = ctx.rng.standard_normal(4), ctx.rng.standard_normal(4)

    def grad_f(t):
        t = t if t.requires_grad else t.requires_grad_()
        f = (t**4).sum() / 4 + t[0] * t[1]
        return torch.autograd.grad(f, t, create_graph=True)[0]

    _, hv = ctx.measure(jvp, grad_f, ctx.put(x_np), ctx.put(v_np))
    hessian = np.diag(3 * x_np**2)
    hessian[0, 1] = hessian[1, 0] = 1.0
    ctx.check_close(hv, hessian @ v_np, dtype="float64")


@sweep("flags-{graph}-{strict}", graph=["no-graph", "create-graph"], strict=["lax", "strict"])
def jvp_grid(ctx, graph, strict):
    import torch
    from torch.autograd.functional import jvp

    x_np, v_np = ctx.rng.standard_normal(6), ctx.rng.standard_normal(6)
    x = ctx.put(x_np, requires_grad=graph == "create-graph")
    out, tangent = ctx.measure(
        jvp,
        lambda t: torch.sin(t) * t,
        x,
        ctx.put(v_np),
        create_graph=graph == "create-graph",
        strict=strict == "strict",
        warm=False,
    )
    ctx.check_close(out, np.sin(x_np) * x_np, dtype="float64", what="output")
    ctx.check_close(tangent, (np.cos(x_np) * x_np + np.sin(x_np)) * v_np, dtype="float64")
    ctx.check(tangent.requires_grad == (graph == "create-graph"), "create_graph not honoured")
