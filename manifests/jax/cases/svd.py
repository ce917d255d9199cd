"""jax.numpy.linalg.svd: reconstruction, singular values, reduced and full matrices."""

import numpy as np
from _jaxhelp import COMPLEX, FLOATS_32_64, MODES

from portbench_runner.api import case, sweep

# LAPACK has no half-precision kernels: JAX refuses float16 and bfloat16 on the CPU
# ("Unsupported dtype"), so the sweeps below cover the dtypes it computes in, and int32,
# which it promotes to float32.
PROMOTED_INTS = ("int32",)


@case("float32-square-64", dtype="float32", shape=(64, 64))
@case("float64-tall", dtype="float64", shape=(96, 32))
@case("float32-wide-jit", dtype="float32", shape=(16, 48), jit=True)
@case("float32-large-512", dtype="float32", shape=(512, 512))
def svd_reconstructs(ctx, dtype, shape, jit=False):
    import jax.numpy as jnp

    a = ctx.rng.standard_normal(shape).astype(dtype)
    fn = ctx.compiled(jnp.linalg.svd, static_argnames="full_matrices") if jit else jnp.linalg.svd
    u, s, vh = ctx.measure(fn, ctx.put(a), full_matrices=False)
    u, s, vh = (ctx.to_numpy(t).astype("float64") for t in (u, s, vh))
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(
        s, np.linalg.svd(a.astype("float64"), compute_uv=False), rtol=tol, atol=tol * s.max()
    )
    ctx.check_close(u @ np.diag(s) @ vh, a, rtol=tol * 10, atol=tol * 10 * s.max(), what="U S Vh")


@case("values-only")
def svd_values(ctx):
    import jax.numpy as jnp

    a = ctx.rng.standard_normal((32, 20)).astype("float32")
    s = ctx.measure(jnp.linalg.svd, ctx.put(a), compute_uv=False)
    ctx.check_close(s, np.linalg.svd(a.astype("float64"), compute_uv=False), rtol=1e-4, atol=1e-4)


# Every dtype jnp.linalg.svd takes on the CPU, eager and under jax.jit, reduced and full:
# singular values against NumPy's, U S Vh rebuilds A, U has orthonormal columns; new names,
# so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-{form}-sweep",
    dtype=FLOATS_32_64 + COMPLEX + PROMOTED_INTS,
    mode=MODES,
    form=("reduced", "full"),
)
def svd_dtypes(ctx, dtype, mode, form):
    import jax.numpy as jnp
    from _jaxhelp import draw, placed

    a, exact = placed(ctx, draw(ctx, (10, 6), dtype, -4, 4), dtype)
    full = form == "full"
    fn = ctx.in_mode(mode, lambda m: jnp.linalg.svd(m, full_matrices=full))
    u, s, vh = (np.asarray(ctx.to_numpy(t)) for t in ctx.measure(fn, a))
    wide = "complex128" if u.dtype.kind == "c" else "float64"
    u, s, vh = u.astype(wide), s.astype("float64"), vh.astype(wide)
    ctx.check(u.shape == ((10, 10) if full else (10, 6)), f"U has shape {u.shape}", "other")
    tol = 1e-10 if dtype in ("float64", "complex128") else 1e-4
    top = np.linalg.svd(exact, compute_uv=False).max()
    ctx.check_close(s, np.linalg.svd(exact, compute_uv=False), rtol=tol, atol=tol * top)
    ctx.check_close(
        u[:, :6] @ np.diag(s) @ vh[:6], exact, rtol=tol * 10, atol=tol * 10 * top, what="U S Vh"
    )
    ctx.check_close(u.conj().T @ u, np.eye(u.shape[1]), rtol=tol * 10, atol=tol * 10, what="U^H U")


# d/dA of sum(singular values) is U Vh (distinct, nonzero singular values), in float32 and
# float64 (no half-width kernels to differentiate).
@sweep("grad-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def svd_grad_dtypes(ctx, dtype, mode):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_swept, draw, placed

    a, exact = placed(ctx, draw(ctx, (7, 5), dtype, -4, 4), dtype)
    g = jax.grad(lambda m: jnp.sum(jnp.linalg.svd(m, compute_uv=False)))
    out = ctx.measure(ctx.in_mode(mode, g), a)
    u, _, vh = np.linalg.svd(exact, full_matrices=False)
    check_swept(ctx, out, u @ vh, scale=50.0)


# The study's other kinds of paths: the documented error for a 1-d input (exact type and
# message per release: jax 0.5.1 moved the rank check into its linalg primitives), the full
# grid of svd's flags (full_matrices x compute_uv x hermitian, on a symmetric matrix so
# hermitian applies), and jax.vmap over a batch of matrices, eager and under jax.jit. New
# names; the cases above keep their ids.
@case("error-one-d-input")
def svd_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises, for_release

    x = ctx.put(np.ones(5, dtype="float32"))
    exc, pattern = for_release(
        ctx,
        (
            ("0.4", (ValueError, r"must have ndims >= 2")),
            ("0.5.1", (TypeError, r"to svd must have rank at least 2")),
        ),
    )
    check_raises(ctx, lambda: jnp.linalg.svd(x), exc, pattern)


@sweep(
    "flags-{full}-{uv}-{hermitian}-sweep",
    full=["full-matrices", "reduced"],
    uv=["uv", "values-only"],
    hermitian=["hermitian", "general"],
)
def svd_flags(ctx, full, uv, hermitian):
    import jax.numpy as jnp

    b = ctx.rng.uniform(-2, 2, (6, 6))
    a = b + b.T  # symmetric: hermitian=True is a valid promise
    flags = {
        "full_matrices": full == "full-matrices",
        "compute_uv": uv == "uv",
        "hermitian": hermitian == "hermitian",
    }
    out = ctx.measure(ctx.compiled(lambda m: jnp.linalg.svd(m, **flags)), ctx.put(a))
    singular = np.linalg.svd(a, compute_uv=False)
    if not flags["compute_uv"]:
        ctx.check_close(out, singular, rtol=1e-10, atol=1e-10)
        return
    u, s, vh = (np.asarray(ctx.to_numpy(t)) for t in out)
    ctx.check_close(s, singular, rtol=1e-10, atol=1e-10)
    ctx.check_close(u * s @ vh, a, rtol=1e-10, atol=1e-9, what="U S Vh")
    ctx.check_close(u.T @ u, np.eye(6), rtol=1e-10, atol=1e-10, what="U^T U")


@sweep("vmap-{mode}-sweep", mode=MODES)
def svd_vmap(ctx, mode):
    import jax
    import jax.numpy as jnp

    a = ctx.rng.uniform(-2, 2, (5, 7, 4))
    out = ctx.measure(
        ctx.in_mode(mode, jax.vmap(lambda m: jnp.linalg.svd(m, compute_uv=False))), ctx.put(a)
    )
    ctx.check_close(
        out, np.stack([np.linalg.svd(m, compute_uv=False) for m in a]), rtol=1e-10, atol=1e-10
    )
