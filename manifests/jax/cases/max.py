"""jax.numpy.max: reductions over axes, dtypes, nan propagation, initial/where, gradient."""

import numpy as np
from _jaxhelp import BOOL, FLOATS_32_64, MODES, REAL_NUMERIC, reduction

from portbench_runner.api import case, sweep


@case("float32-all", dtype="float32", axis=None)
@case("float64-axis0", dtype="float64", axis=0)
@case("int32-axis1", dtype="int32", axis=1)
@case("bfloat16-all", dtype="bfloat16", axis=None)
@case("float32-axis1-jit", dtype="float32", axis=1, jit=True)
@case("float32-large", dtype="float32", axis=None, shape=(1000, 1000))
def max_values(ctx, dtype, axis, jit=False, shape=(64, 128)):
    import jax.numpy as jnp

    reduction(
        ctx,
        jnp.max,
        np.max,
        dtype=dtype,
        axis=axis,
        jit=jit,
        shape=shape,
        lo=-1000,
        hi=1000,
        rtol=0.0,
    )


@case("nan-propagates")
def max_nan(ctx):
    import jax.numpy as jnp

    out = ctx.measure(jnp.max, ctx.put(np.array([1.0, np.nan, 3.0], dtype="float32")))
    ctx.check(np.isnan(ctx.to_numpy(out)), f"max with a nan gave {out}")


@case("where-and-initial")
def max_where(ctx):
    import jax.numpy as jnp

    x = np.array([5.0, 9.0, 1.0], dtype="float32")
    mask = np.array([True, False, True])
    out = ctx.measure(jnp.max, ctx.put(x), where=ctx.put(mask), initial=-np.inf)
    ctx.check_close(out, 5.0, dtype="float32")


@case("grad-picks-argmax")
def max_grad(ctx):
    import jax
    import jax.numpy as jnp

    out = ctx.measure(jax.grad(jnp.max), ctx.put(np.array([1.0, 7.0, 3.0], dtype="float32")))
    ctx.check_close(out, [0.0, 1.0, 0.0], dtype="float32")


# Every ordered dtype jnp.max takes on the CPU, eager and under jax.jit, over an axis (a
# maximum is exact in every dtype); new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=BOOL + REAL_NUMERIC,
    mode=MODES,
)
def max_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_reduction

    lo = 0 if dtype.startswith("u") else -50
    out = swept_reduction(ctx, jnp.max, np.max, dtype, mode, lo=lo, hi=50)
    ctx.check(str(out.dtype) == dtype, f"max of {dtype} gave {out.dtype}")


# The study's other kinds of paths: the documented errors for bad arguments (an empty array,
# a where mask without initial: exact type and message), the full grid of max's flags (axis
# x keepdims x where x initial; a mask needs initial, so that pair is the error above) under
# jax.jit, the Hessian of max(x)**2 (2 at the argmax, 0 elsewhere) in float32 and float64,
# and jax.vmap along a leading and an inner axis, eager and under jax.jit. New names; the
# cases above keep their ids.
@sweep("error-{form}", form=["empty-input", "where-without-initial"])
def max_errors(ctx, form):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    if form == "empty-input":
        x = ctx.put(np.ones((0,), dtype="float32"))
        check_raises(
            ctx, lambda: jnp.max(x), ValueError, r"zero-size array to reduction operation max"
        )
    else:
        x = ctx.put(np.ones((3, 4), dtype="float32"))
        mask = ctx.put(np.arange(12).reshape(3, 4) % 2 == 0)
        check_raises(
            ctx, lambda: jnp.max(x, where=mask), ValueError, r"one has to specify 'initial'"
        )


@sweep(
    "flags-axis-{axis}-{keepdims}-where-{where}-initial-{initial}-sweep",
    axis=["all", "0", "1", "both"],
    keepdims=["keep", "drop"],
    where=["none", "mask"],
    initial=["none", "value"],
    exclude=[{"where": "mask", "initial": "none"}],
)
def max_flags(ctx, axis, keepdims, where, initial):
    import jax.numpy as jnp
    from _jaxhelp import reduction_flags

    kw = {} if initial == "none" else {"initial": 0.5}
    reduction_flags(ctx, jnp.max, np.max, "float32", axis, keepdims, where, **kw)


def _max_hessian(x):
    h = np.zeros((x.size, x.size))
    k = int(np.argmax(x))
    h[k, k] = 2.0
    return h


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def max_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_hessian

    swept_hessian(ctx, lambda v: jnp.max(v) ** 2, _max_hessian, dtype, mode)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def max_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(
        ctx,
        lambda x: jnp.max(x, axis=-1),
        lambda x: np.max(x, axis=-1),
        "float32",
        mode,
        in_axis=axis,
    )
