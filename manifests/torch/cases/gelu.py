"""torch.nn.GELU: x * Phi(x) (exact erf form) and the tanh approximation, dtypes, autograd."""

import math

import numpy as np
from _torchhelp import grad_matches, unary

from portbench_runner.api import case

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
