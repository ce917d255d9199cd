"""jax.numpy.compress: select slices by a boolean condition, along axes, flat."""

import numpy as np

from portbench_runner.api import case


@case("axis0", axis=0)
@case("axis1", axis=1)
@case("flat", axis=None)
@case("int32-axis0", axis=0, dtype="int32")
@case("large-axis0", axis=0, shape=(1000, 1000))
def compress_values(ctx, axis, dtype="float32", shape=(6, 8)):
    import jax.numpy as jnp

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    n = x.size if axis is None else shape[axis]
    cond = ctx.rng.random(n) > 0.5
    ctx.check_equal(
        ctx.measure(jnp.compress, ctx.put(cond), ctx.put(x), axis=axis),
        np.compress(cond, x, axis=axis),
    )


@case("short-condition")
def compress_short(ctx):
    import jax.numpy as jnp

    x = np.arange(10, dtype="float32")
    cond = np.array([True, False, True])
    ctx.check_equal(ctx.measure(jnp.compress, ctx.put(cond), ctx.put(x)), np.compress(cond, x))
