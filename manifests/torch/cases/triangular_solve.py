"""torch.triangular_solve: solve A X = B for triangular A (upper/lower, transposed, batched)."""

import numpy as np

from portbench_runner.api import case


def _triangular(ctx, n, upper, batch=()):
    m = ctx.rng.standard_normal((*batch, n, n)) + 3 * n * np.eye(n)
    return np.triu(m) if upper else np.tril(m)


@case("upper", upper=True)
@case("lower", upper=False)
@case("upper-transposed", upper=True, transpose=True)
@case("float32-lower", upper=False, dtype="float32")
@case("batched", upper=True, batch=(4,))
@case("large", upper=False, n=512)
def triangular_solve_values(ctx, upper, transpose=False, dtype="float64", batch=(), n=16):
    import torch

    a = _triangular(ctx, n, upper, batch).astype(dtype)
    b = ctx.rng.standard_normal((*batch, n, 3)).astype(dtype)
    x, _ = ctx.measure(
        torch.triangular_solve, ctx.put(b), ctx.put(a), upper=upper, transpose=transpose
    )
    a64 = np.swapaxes(a, -1, -2).astype("float64") if transpose else a.astype("float64")
    tol = 1e-10 if dtype == "float64" else 1e-4
    ctx.check_close(
        a64 @ ctx.to_numpy(x).astype("float64"), b.astype("float64"), rtol=tol, atol=tol
    )
