"""jax.numpy.average: plain and weighted means, axes, returned weights sum, jit."""

import numpy as np
from _jaxhelp import reduction

from portbench_runner.api import case


@case("float32-all", dtype="float32", axis=None)
@case("float64-axis0", dtype="float64", axis=0)
@case("float32-axis1-jit", dtype="float32", axis=1, jit=True)
@case("bfloat16-all", dtype="bfloat16", axis=None)
def average_plain(ctx, dtype, axis, jit=False):
    import jax.numpy as jnp

    reduction(ctx, jnp.average, np.average, dtype=dtype, axis=axis, jit=jit)


@case("weighted-axis1")
@case("weighted-returned", returned=True)
def average_weighted(ctx, returned=False):
    import jax.numpy as jnp

    x = ctx.rng.standard_normal((16, 32))
    w = ctx.rng.uniform(0.1, 1.0, (16, 32))
    out = ctx.measure(jnp.average, ctx.put(x), axis=1, weights=ctx.put(w), returned=returned)
    expected = np.average(x, axis=1, weights=w, returned=returned)
    if returned:
        ctx.check_close(out[0], expected[0], dtype="float64")
        ctx.check_close(out[1], expected[1], dtype="float64", what="sum of weights")
    else:
        ctx.check_close(out, expected, dtype="float64")


@case("grad-is-one-over-n")
def average_grad(ctx):
    import jax
    import jax.numpy as jnp

    out = ctx.measure(jax.grad(jnp.average), ctx.put(np.ones(8, dtype="float32")))
    ctx.check_close(out, np.full(8, 1 / 8), dtype="float32")
