"""jax.scipy.linalg.lu: P L U factorization (reconstruction, triangularity), permute_l, batches."""

import numpy as np

from portbench_runner.api import case


@case("float32-square", dtype="float32", shape=(32, 32))
@case("float64-square", dtype="float64", shape=(64, 64))
@case("float32-tall", dtype="float32", shape=(40, 20))
@case("float32-large", dtype="float32", shape=(512, 512))
@case("float32-jit", dtype="float32", shape=(16, 16), jit=True)
def lu_factors(ctx, dtype, shape, jit=False):
    import jax
    import jax.scipy.linalg as jsl

    a = ctx.rng.standard_normal(shape).astype(dtype)
    f = jax.jit(jsl.lu) if jit else jsl.lu
    p, lower, upper = (
        np.asarray(ctx.to_numpy(t)).astype("float64") for t in ctx.measure(f, ctx.put(a))
    )
    tol = 1e-4 if dtype == "float32" else 1e-11
    ctx.check_close(
        p @ lower @ upper,
        a.astype("float64"),
        rtol=tol,
        atol=tol * np.abs(a).max() * shape[0] ** 0.5,
    )
    ctx.check(
        np.allclose(np.triu(lower, 1), 0) and np.allclose(np.diag(lower), 1),
        "L is not unit lower triangular",
    )
    ctx.check(np.allclose(np.tril(upper, -1), 0), "U is not upper triangular")


@case("permute-l")
def lu_permute_l(ctx):
    import jax.scipy.linalg as jsl

    a = ctx.rng.standard_normal((12, 12))
    pl, upper = (
        np.asarray(ctx.to_numpy(t)) for t in ctx.measure(jsl.lu, ctx.put(a), permute_l=True)
    )
    ctx.check_close(pl @ upper, a, dtype="float64", atol=1e-10)
