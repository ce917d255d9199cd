"""jax.numpy.linalg.svd: reconstruction, singular values, reduced and full matrices."""

import numpy as np

from portbench_runner.api import case


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
