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
    out = ctx.measure(jnp.all, ctx.put(x), axis=1)
    ctx.check(str(out.dtype) == "bool", f"jnp.all gave {out.dtype}, not bool", "type")
    ctx.check_equal(out, [False, True])


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


# The study's other kinds of paths: the documented error for a bad axis (exact type and
# message), the full grid of all's flags (axis x keepdims x where) under jax.jit, and
# jax.vmap along a leading and an inner axis, eager and under jax.jit. New names; the cases
# above keep their ids.
@case("error-axis-out-of-range")
def all_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones((3, 4), dtype=bool))
    check_raises(ctx, lambda: jnp.all(x, axis=2), ValueError, r"axis 2 is out of bounds")


@sweep(
    "flags-axis-{axis}-{keepdims}-where-{where}-sweep",
    axis=["all", "0", "1", "both"],
    keepdims=["keep", "drop"],
    where=["none", "mask"],
)
def all_flags(ctx, axis, keepdims, where):
    import jax.numpy as jnp
    from _jaxhelp import reduction_flags

    # Values 0..2: about a third are False, so every reduced slice's answer varies.
    reduction_flags(ctx, jnp.all, np.all, "int32", axis, keepdims, where, lo=0, hi=3)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def all_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(
        ctx,
        lambda x: jnp.all(x > -2.0, axis=-1),
        lambda x: np.all(x > -2.0, axis=-1),
        "float32",
        mode,
        in_axis=axis,
    )
