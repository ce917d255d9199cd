"""jax.numpy.max: reductions over axes, dtypes, nan propagation, initial/where, gradient."""

import numpy as np
from _jaxhelp import BOOL, MODES, REAL_NUMERIC, reduction

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
