"""jax.numpy.convolve: modes full/same/valid, dtypes, long signals, gradient."""

import numpy as np

from portbench_runner.api import case


@case("full", mode="full")
@case("same", mode="same")
@case("valid", mode="valid")
@case("float64-full", mode="full", dtype="float64")
@case("long-signal", mode="same", n=100_000)
def convolve_values(ctx, mode, dtype="float32", n=256):
    import jax.numpy as jnp

    a = ctx.rng.standard_normal(n).astype(dtype)
    v = ctx.rng.standard_normal(17).astype(dtype)
    out = ctx.measure(jnp.convolve, ctx.put(a), ctx.put(v), mode=mode)
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(
        out,
        np.convolve(a.astype("float64"), v.astype("float64"), mode=mode),
        rtol=tol,
        atol=tol * 10,
    )


@case("int32-exact")
def convolve_int(ctx):
    import jax.numpy as jnp

    a = np.array([1, 2, 3], dtype="int32")
    v = np.array([0, 1, 1], dtype="int32")
    ctx.check_equal(ctx.measure(jnp.convolve, ctx.put(a), ctx.put(v)), np.convolve(a, v))


@case("jit")
def convolve_jit(ctx):
    import jax
    import jax.numpy as jnp

    a = ctx.rng.standard_normal(64).astype("float32")
    v = ctx.rng.standard_normal(5).astype("float32")
    f = jax.jit(jnp.convolve, static_argnames="mode")
    out = ctx.measure(f, ctx.put(a), ctx.put(v), mode="valid")
    ctx.check_close(
        out,
        np.convolve(a.astype("float64"), v.astype("float64"), mode="valid"),
        rtol=1e-4,
        atol=1e-4,
    )
