"""jax.numpy.all: truth reductions over booleans and numbers, axes, empty input, jit."""

import numpy as np

from portbench_runner.api import case


@case("bool-all-axis", axis=None)
@case("bool-axis0", axis=0)
@case("bool-axis1-jit", axis=1, jit=True)
@case("bool-large", axis=None, shape=(1000, 1000))
def all_bool(ctx, axis, jit=False, shape=(64, 32)):
    import jax.numpy as jnp

    x = ctx.rng.random(shape) > 0.02
    f = ctx.compiled(lambda v: jnp.all(v, axis=axis)) if jit else (lambda v: jnp.all(v, axis=axis))
    ctx.check_equal(ctx.measure(f, ctx.put(x)), np.all(x, axis=axis))


@case("float-nonzero-is-true")
@case("int32-values", dtype="int32")
def all_numbers(ctx, dtype="float32"):
    import jax.numpy as jnp

    x = np.array([[1, 2, 0], [3, 4, 5]], dtype=dtype)
    ctx.check_equal(ctx.measure(jnp.all, ctx.put(x), axis=1), [False, True])


@case("empty-is-true")
def all_empty(ctx):
    import jax.numpy as jnp

    ctx.check_equal(ctx.measure(jnp.all, ctx.put(np.zeros((0,), dtype=bool))), True)
