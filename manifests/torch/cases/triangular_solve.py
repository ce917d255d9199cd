"""torch.triangular_solve: solve A X = B for triangular A (upper/lower, transposed, batched)."""

import numpy as np

from portbench_runner.api import case, sweep


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


@sweep("{dtype}-sweep", dtype=["complex64", "complex128"])
def triangular_solve_complex(ctx, dtype):
    import torch

    n = 5
    a_np = np.triu(ctx.rng.standard_normal((n, n)) + 1j * ctx.rng.standard_normal((n, n)))
    a_np += 4 * np.eye(n)
    b_np = ctx.rng.standard_normal((n, 2)) + 1j * ctx.rng.standard_normal((n, 2))
    out = ctx.measure(
        torch.triangular_solve, ctx.put(b_np.astype(dtype)), ctx.put(a_np.astype(dtype))
    )
    tol = 1e-4 if dtype == "complex64" else 1e-10
    ctx.check_close(out.solution, np.linalg.solve(a_np, b_np), rtol=tol, atol=tol)
