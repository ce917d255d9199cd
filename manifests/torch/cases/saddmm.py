"""torch.saddmm (sparse beta*C + alpha*A@B): sparse results against dense references."""

import numpy as np

from portbench_runner.api import case, sweep


def _sparse(ctx, shape, density):
    dense = ctx.rng.standard_normal(shape) * (ctx.rng.random(shape) < density)
    return dense


@case("float64", dtype="float64")
@case("float32-alpha-beta", dtype="float32", alpha=0.5, beta=2.0)
@case("denser", dtype="float64", density=0.5)
@case("larger", dtype="float64", n=256, density=0.02)
def saddmm_values(ctx, dtype, alpha=1.0, beta=1.0, density=0.1, n=32):

    saddmm = ctx.require("torch.saddmm")
    a = _sparse(ctx, (n, n), density).astype(dtype)
    c = _sparse(ctx, (n, n), density).astype(dtype)
    b = ctx.rng.standard_normal((n, n)).astype(dtype)
    sa, sc = ctx.put(a).to_sparse(), ctx.put(c).to_sparse()
    out = ctx.measure(saddmm, sc, sa, ctx.put(b), beta=beta, alpha=alpha)
    expected = beta * c.astype("float64") + alpha * a.astype("float64") @ b.astype("float64")
    tol = 1e-10 if dtype == "float64" else 1e-4
    ctx.check_close(out.to_dense(), expected, rtol=tol, atol=tol * n)


@sweep("{dtype}-sweep", dtype=["complex128", "float64"])
def sspaddmm_dtypes(ctx, dtype):
    import torch

    # The study's saddmm tests call torch.sspaddmm (sparse input, sparse result).
    m_np = np.zeros((6, 6), dtype=dtype)
    m_np[0, 1], m_np[3, 4] = 1.5, -2
    a_np = np.zeros((6, 5), dtype=dtype)
    a_np[2, 0], a_np[5, 4] = 2, 0.5
    b_np = ctx.rng.standard_normal((5, 6)).astype(dtype)
    if dtype.startswith("complex"):
        b_np = b_np + 1j
    out = ctx.measure(
        torch.sspaddmm, ctx.put(m_np).to_sparse(), ctx.put(a_np).to_sparse(), ctx.put(b_np)
    )
    ctx.check_close(out.to_dense(), m_np + a_np @ b_np, rtol=1e-10, atol=1e-10)
