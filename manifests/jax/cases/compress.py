"""jax.numpy.compress: select slices by a boolean condition, along axes, flat."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, MODES

from portbench_runner.api import case, sweep


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


# Every dtype jnp.compress selects from on the CPU (it moves values: exact), eager and under
# jax.jit. Under jit the output's length must be static: jnp.compress's size= (newer JAX)
# gives it; a release without size= cannot compress under jit and the case says so; new
# names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def compress_dtypes(ctx, dtype, mode):
    import inspect

    import jax.numpy as jnp
    from _jaxhelp import draw, out_dtype, placed

    x, exact = placed(ctx, draw(ctx, (7, 5), dtype, 0, 9), dtype)
    cond = np.array([True, False, True, True, False, False, True])
    if mode == "jit":
        if "size" not in inspect.signature(jnp.compress).parameters:
            ctx.skip(f"jnp.compress has no size= in jax {ctx.version}: no static length under jit")
        fn = ctx.in_mode(mode, lambda v: jnp.compress(cond, v, axis=0, size=int(cond.sum())))
    else:
        fn = lambda v: jnp.compress(cond, v, axis=0)  # noqa: E731
    out = ctx.measure(fn, x)
    ctx.check(
        out_dtype(ctx, out) == dtype, f"compress of {dtype} gave {out_dtype(ctx, out)}", "type"
    )
    ctx.check_equal(out, np.compress(cond, exact, axis=0).astype(out_dtype(ctx, out)))


# The study's other kinds of paths: the documented errors for bad conditions (2-d, or True
# past the end of the axis: exact type and message), the full grid of compress's flags (axis
# x size, size padding with fill_value; size= is newer than 0.4.13, which skips those), the
# Hessian of sum(compress(c, x)**3) (diag(6x) on the kept elements) in float32 and float64,
# and jax.vmap along a leading and an inner axis, eager and under jax.jit. New names; the
# cases above keep their ids.
@sweep("error-{form}", form=["two-d-condition", "condition-past-end"])
def compress_errors(ctx, form):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    if form == "two-d-condition":
        c = ctx.put(np.ones((2, 2), dtype=bool))
        check_raises(ctx, lambda: jnp.compress(c, x), ValueError, r"condition must be a 1D array")
    else:
        c = ctx.put(np.ones(9, dtype=bool))
        check_raises(
            ctx,
            lambda: jnp.compress(c, x, axis=0),
            ValueError,
            r"condition contains entries that are out of bounds",
        )


@sweep(
    "flags-axis-{axis}-size-{size}-sweep", axis=["flat", "0", "1"], size=["none", "exact", "padded"]
)
def compress_flags(ctx, axis, size):
    import inspect

    import jax.numpy as jnp

    x = np.arange(30, dtype="float32").reshape(5, 6)
    ax = None if axis == "flat" else int(axis)
    cond = np.array([True, False, True, True, False])
    kept = int(cond.sum())
    kw = {}
    if size != "none":
        if "size" not in inspect.signature(jnp.compress).parameters:
            ctx.skip(f"jnp.compress has no size= in jax {ctx.version}")
        kw = {"size": kept} if size == "exact" else {"size": kept + 2, "fill_value": -7.0}
    out = ctx.measure(lambda v: jnp.compress(cond, v, axis=ax, **kw), ctx.put(x))
    expected = np.compress(cond, x, axis=ax)
    if size == "padded":
        axis_n = 0 if ax is None else ax
        pad = [(0, 0)] * expected.ndim
        pad[axis_n] = (0, 2)
        expected = np.pad(expected, pad, constant_values=-7.0)
    ctx.check_equal(out, expected)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=("eager",))
def compress_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import selection_hessian, swept_hessian

    cond = np.array([False, True, True, False, True])
    f, href = selection_hessian(
        lambda v: jnp.compress(cond, v, axis=1), lambda v: np.compress(cond, v, axis=1), (3, 5)
    )
    swept_hessian(ctx, f, href, dtype, mode, shape=(3, 5))


# Eager only: under jax.jit compress needs size= for a static length (see compress_dtypes).
@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=("eager",))
def compress_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    # A static (NumPy) condition: the output's shape is known while tracing.
    cond = np.array([True, False, True, True, False])
    swept_vmap(
        ctx,
        lambda x: jnp.compress(cond, x, axis=1),
        lambda x: np.compress(cond, x, axis=1),
        "float32",
        mode,
        in_axis=axis,
    )
