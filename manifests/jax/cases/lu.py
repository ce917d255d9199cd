"""jax.scipy.linalg.lu: P L U factorization (reconstruction, triangularity), permute_l, batches."""

import numpy as np
from _jaxhelp import COMPLEX, FLOATS_32_64, MODES

from portbench_runner.api import case, sweep

# LAPACK has no half-precision kernels: JAX refuses float16 and bfloat16 on the CPU
# ("Unsupported dtype"), so the sweeps below cover the dtypes it computes in, and int32,
# which it promotes to float32.
PROMOTED_INTS = ("int32",)


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


# Every dtype jax.scipy.linalg.lu takes on the CPU, eager and under jax.jit: P L U rebuilds
# A, L is unit lower and U upper triangular; new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=FLOATS_32_64 + COMPLEX + PROMOTED_INTS, mode=MODES)
def lu_dtypes(ctx, dtype, mode):
    import jax.scipy.linalg as jsl
    from _jaxhelp import draw, placed

    a, exact = placed(ctx, draw(ctx, (9, 9), dtype, -4, 4), dtype)
    p, lower, upper = (
        np.asarray(ctx.to_numpy(t)) for t in ctx.measure(ctx.in_mode(mode, jsl.lu), a)
    )
    tol = 1e-11 if dtype in ("float64", "complex128") else 1e-4
    ctx.check_close(
        p @ lower @ upper, exact, rtol=tol, atol=tol * np.abs(exact).max() * 3, what="P L U"
    )
    ctx.check(
        np.all(np.triu(lower, 1) == 0) and np.all(np.diag(lower) == 1),
        "L is not unit lower triangular",
    )
    ctx.check(np.all(np.tril(upper, -1) == 0), "U is not upper triangular")


# The factors' derivatives must rebuild A's: d/dA of sum((P L U) * W) is W, in float32 and
# float64 (no half-width kernels to differentiate).
@sweep("grad-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def lu_grad_dtypes(ctx, dtype, mode):
    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl
    from _jaxhelp import check_swept, draw, placed

    a, _ = placed(ctx, draw(ctx, (6, 6), dtype, -4, 4), dtype)
    w, w_exact = placed(ctx, draw(ctx, (6, 6), dtype, -1, 1), dtype)

    def loss(m, weights):
        p, lower, upper = jsl.lu(m)
        return jnp.sum((p @ lower @ upper) * weights)

    out = ctx.measure(ctx.in_mode(mode, jax.grad(loss)), a, w)
    check_swept(ctx, out, w_exact, scale=10.0)


# The study's other kinds of paths: the documented error for a 1-d input (exact type and
# message per release: jax 0.5.1 moved the rank check into its linalg primitives), the full
# grid of lu's flags (permute_l x check_finite), and jax.vmap over a batch of matrices,
# eager and under jax.jit. New names; the cases above keep their ids.
@case("error-one-d-input")
def lu_error(ctx):
    import jax.scipy.linalg as jsl
    from _jaxhelp import check_raises, for_release

    x = ctx.put(np.ones(5, dtype="float32"))
    exc, pattern = for_release(
        ctx,
        (
            ("0.4", (ValueError, r"must have ndims >= 2")),
            ("0.5.1", (TypeError, r"to lu must have rank at least 2")),
        ),
    )
    check_raises(ctx, lambda: jsl.lu(x), exc, pattern)


@sweep(
    "flags-{permute}-{check}-sweep",
    permute=["permute-l", "p-l-u"],
    check=["check-finite", "no-check"],
)
def lu_flags(ctx, permute, check):
    import jax.scipy.linalg as jsl

    a = ctx.rng.uniform(-2, 2, (6, 6))
    flags = {"permute_l": permute == "permute-l", "check_finite": check == "check-finite"}
    out = ctx.measure(ctx.compiled(lambda m: jsl.lu(m, **flags)), ctx.put(a))
    parts = [np.asarray(ctx.to_numpy(t)) for t in out]
    if flags["permute_l"]:
        pl, u = parts
        ctx.check_close(pl @ u, a, rtol=1e-10, atol=1e-10, what="(P L) U")
    else:
        p, low, u = parts
        ctx.check_close(p @ low @ u, a, rtol=1e-10, atol=1e-10, what="P L U")
        ctx.check(
            np.allclose(np.tril(low), low) and np.allclose(np.diag(low), 1.0),
            "L is not unit lower",
            "other",
        )
    ctx.check(np.allclose(np.triu(u), u), "U is not upper triangular", "other")


@sweep("vmap-{mode}-sweep", mode=MODES)
def lu_vmap(ctx, mode):
    import jax
    import jax.scipy.linalg as jsl

    a = ctx.rng.uniform(-2, 2, (5, 6, 6))
    p, low, u = (
        np.asarray(ctx.to_numpy(t))
        for t in ctx.measure(ctx.in_mode(mode, jax.vmap(jsl.lu)), ctx.put(a))
    )
    ctx.check(p.shape == (5, 6, 6), f"P has shape {p.shape}", "other")
    for k in range(5):
        ctx.check_close(
            p[k] @ low[k] @ u[k], a[k], rtol=1e-10, atol=1e-10, what=f"matrix {k}: P L U"
        )
