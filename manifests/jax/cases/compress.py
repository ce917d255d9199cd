"""jax.numpy.compress: select slices by a boolean condition, along axes, flat."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

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
