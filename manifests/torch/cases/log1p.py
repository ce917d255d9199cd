"""torch.log1p: accurate log(1 + x) near zero, dtypes, -1 gives -inf, autograd, sparse."""

import numpy as np
from _torchhelp import grad_matches, unary

from portbench_runner.api import case


@case("float32", dtype="float32")
@case("float64", dtype="float64")
@case("bfloat16", dtype="bfloat16")
@case("large", dtype="float32", shape=(1_000_000,))
def log1p_values(ctx, dtype, shape=(1024,)):
    import torch

    unary(ctx, torch.log1p, np.log1p, dtype=dtype, shape=shape, lo=-0.9, hi=10)


@case("tiny-inputs-keep-precision")
def log1p_tiny(ctx):
    import torch

    x = np.array([1e-10, -1e-12, 1e-7], dtype="float64")
    ctx.check_close(ctx.measure(torch.log1p, ctx.put(x)), np.log1p(x), dtype="float64")


@case("grad")
def log1p_grad(ctx):
    import torch

    grad_matches(ctx, torch.log1p, lambda x: 1 / (1 + x), lo=0, hi=5)


@case("sparse-coo")
def log1p_sparse(ctx):
    import torch

    dense = np.zeros((4, 5), dtype="float32")
    dense[1, 2], dense[3, 0] = 0.5, 2.0
    sparse = ctx.put(dense).to_sparse()
    out = ctx.measure(torch.log1p, sparse)
    ctx.check_close(out.to_dense(), np.log1p(dense.astype("float64")), dtype="float32")
