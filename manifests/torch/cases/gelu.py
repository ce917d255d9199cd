"""torch.nn.GELU: x * Phi(x) (exact erf form) and the tanh approximation, dtypes, autograd."""

import math

import numpy as np
from _torchhelp import EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS, grad_matches, unary

from portbench_runner.api import case, sweep

ERF = np.vectorize(math.erf)


def gelu_exact(x):
    return 0.5 * x * (1 + ERF(x / math.sqrt(2)))


@case("float32", dtype="float32")
@case("float64", dtype="float64")
@case("bfloat16", dtype="bfloat16")
@case("large", dtype="float32", shape=(200_000,))
def gelu_values(ctx, dtype, shape=(1024,)):
    import torch

    unary(
        ctx,
        torch.nn.GELU(),
        gelu_exact,
        dtype=dtype,
        shape=shape,
        lo=-6,
        hi=6,
        rtol={"float32": 1e-5}.get(dtype),
    )


@case("tanh-approximation")
def gelu_tanh(ctx):
    import torch

    if not ctx.version_at_least("1.12"):
        ctx.skip(f"GELU(approximate='tanh') arrived in torch 1.12 (this is {ctx.version})")

    def approx(x):
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))

    unary(ctx, torch.nn.GELU(approximate="tanh"), approx, lo=-6, hi=6, rtol=1e-5)


@case("grad")
def gelu_grad(ctx):
    import torch

    def dgelu(x):
        return 0.5 * (1 + ERF(x / math.sqrt(2))) + x * np.exp(-(x**2) / 2) / math.sqrt(2 * math.pi)

    grad_matches(ctx, torch.nn.GELU(), dgelu)


@case("in-transformer-layer")
def gelu_in_layer(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    layer = ctx.measure(
        lambda: torch.nn.TransformerEncoderLayer(16, 2, 32, activation="gelu").to(ctx.device),
        warm=False,
    )
    ctx.check(
        layer.activation is torch.nn.functional.gelu or isinstance(layer.activation, torch.nn.GELU),
        f"activation {layer.activation}",
    )


def gelu_tanh_ref(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


# Every float dtype GELU takes on the CPU (it refuses integers and complex), both forms of
# the activation, in each mode.
@sweep(
    "{dtype}-{approximate}-{mode}-sweep",
    dtype=HALF_FLOATS + FULL_FLOATS,
    approximate=["none", "tanh"],
    mode=EAGER_COMPILED,
)
def gelu_dtypes(ctx, dtype, approximate, mode):
    import torch
    from _torchhelp import RTOL, draw, placed

    if approximate == "tanh" and not ctx.version_at_least("1.12"):
        ctx.skip(f"GELU(approximate='tanh') arrived in torch 1.12 (this is {ctx.version})")
    x, x_h = placed(ctx, draw(ctx, (257,), dtype, -6, 6), dtype)
    layer = torch.nn.GELU(approximate=approximate)
    out = ctx.measure(ctx.in_mode(mode, layer), x)
    ctx.check(out.dtype == x.dtype, f"dtype {out.dtype}, not {x.dtype}")
    ref = gelu_exact if approximate == "none" else gelu_tanh_ref
    r = RTOL[dtype] * (1 if dtype in HALF_FLOATS else 5)
    ctx.check_close(out, ref(x_h), rtol=r, atol=r)


# autograd against the analytic derivative, in each float dtype (half widths looser).
@sweep("grad-{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS)
def gelu_grad_dtypes(ctx, dtype):
    import torch
    from _torchhelp import RTOL, draw, placed

    x, x_h = placed(ctx, draw(ctx, (130,), dtype, -4, 4), dtype, requires_grad=True)

    def backward():
        x.grad = None
        torch.nn.GELU()(x).sum().backward()
        return x.grad

    dgelu = 0.5 * (1 + ERF(x_h / math.sqrt(2))) + x_h * np.exp(-(x_h**2) / 2) / math.sqrt(
        2 * math.pi
    )
    r = RTOL[dtype] * (2 if dtype in HALF_FLOATS else 10)
    ctx.check_close(ctx.measure(backward), dgelu, rtol=r, atol=r)


@case("gradcheck-float64-sweep")
def gelu_gradcheck(ctx):
    import torch

    x = ctx.put(ctx.rng.uniform(-3, 3, size=12), requires_grad=True)
    ctx.check(ctx.measure(torch.autograd.gradcheck, torch.nn.GELU(), (x,), warm=False), "gradcheck")


@sweep("{form}-sweep", form=["non-contiguous", "empty", "scalar", "functional", "integer-refused"])
def gelu_forms(ctx, form):
    import torch
    import torch.nn.functional as F

    a_np = ctx.rng.uniform(-4, 4, size=(9, 7)).astype("float32")
    a = ctx.put(a_np)
    if form == "integer-refused":
        ints = ctx.put(np.arange(4, dtype="int64"))

        def attempt():
            try:
                F.gelu(ints)
            except (RuntimeError, TypeError):
                return True
            return False

        ctx.check(ctx.measure(attempt), "gelu accepted an int64 tensor", category="type")
        return
    if form == "non-contiguous":
        view, expected = a.t()[::2], gelu_exact(a_np.T[::2].astype("float64"))
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        out = ctx.measure(torch.nn.GELU(), view)
    elif form in ("empty", "scalar"):
        x_np = np.zeros((0, 4), "float32") if form == "empty" else np.array(1.5, "float32")
        out = ctx.measure(torch.nn.GELU(), ctx.put(x_np))
        expected = x_np if x_np.size == 0 else gelu_exact(x_np)  # vectorize needs elements
    else:
        out, expected = ctx.measure(F.gelu, a), gelu_exact(a_np.astype("float64"))
    ctx.check_close(out, expected, rtol=2e-5, atol=2e-5)


# The study's kinds of paths (issue #33): the refusals (an unknown approximation; integers,
# whose class changed in 2.8), vmap of both forms, and second derivatives of both forms.
@sweep("raises-{arg}", arg=["approximate", "integer"])
def gelu_refusals(ctx, arg):
    import torch.nn.functional as F
    from _torchhelp import kernel_error, refusal

    if arg == "approximate":
        x = ctx.put(np.zeros(3, dtype="float32"))
        refusal(
            ctx,
            lambda: F.gelu(x, approximate="sigmoid"),
            RuntimeError,
            "approximate argument must be either none or tanh",
        )
    else:
        ints = ctx.put(np.arange(4, dtype="int64"))
        refusal(ctx, lambda: F.gelu(ints), kernel_error(ctx), "not implemented for 'Long'")


@sweep("vmap-{approximate}", approximate=["none", "tanh"])
def gelu_vmap(ctx, approximate):
    import torch.nn.functional as F
    from _torchhelp import vmap

    x = ctx.rng.uniform(-4, 4, size=(5, 33))
    out = ctx.measure(vmap(ctx)(lambda t: F.gelu(t, approximate=approximate)), ctx.put(x))
    ref = gelu_exact if approximate == "none" else gelu_tanh_ref
    ctx.check_close(out, ref(x), dtype="float64")


@sweep("grad2-{approximate}", approximate=["none", "tanh"])
def gelu_gradgrad(ctx, approximate):
    import torch.nn.functional as F
    from _torchhelp import gradgradcheck

    if approximate == "tanh" and not ctx.version_at_least("1.12"):
        ctx.skip(f"GELU(approximate='tanh') arrived in torch 1.12 (this is {ctx.version})")
    gradgradcheck(
        ctx, lambda t: F.gelu(t, approximate=approximate), ctx.rng.uniform(-3, 3, size=10)
    )
