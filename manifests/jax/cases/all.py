"""jax.numpy.all: truth reductions over booleans and numbers, axes, empty input, jit."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

from portbench_runner.api import case, sweep


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


# Every dtype jnp.all reduces (an axis; zeros drawn often) on the CPU (exact), eager and under jax.jit; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def all_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_exact

    swept_exact(
        ctx,
        lambda x: jnp.all(x, axis=1),
        lambda x: np.all(x, axis=1),
        dtype,
        mode,
        lo=0,
        hi=3,
        keeps_dtype=False,
    )
