"""jax.numpy.mean: axes, dtype promotion of integers, keepdims, empty input, gradient."""

import numpy as np
from _jaxhelp import BOOL, COMPLEX, FEW_INTS, FLOATS, MODES, reduction

from portbench_runner.api import case, sweep


@case("float32-all", dtype="float32", axis=None)
@case("float64-axis0", dtype="float64", axis=0)
@case("bfloat16-all", dtype="bfloat16", axis=None)
@case("float32-axis1-jit", dtype="float32", axis=1, jit=True)
@case("float32-large", dtype="float32", axis=None, shape=(1000, 1000))
def mean_values(ctx, dtype, axis, jit=False, shape=(64, 128)):
    import jax.numpy as jnp

    reduction(ctx, jnp.mean, np.mean, dtype=dtype, axis=axis, jit=jit, shape=shape)


@case("int32-promotes-to-float")
def mean_int(ctx):
    import jax.numpy as jnp

    out = ctx.measure(jnp.mean, ctx.put(np.array([1, 2, 4], dtype="int32")))
    ctx.check(
        np.asarray(ctx.to_numpy(out)).dtype.kind == "f", f"mean of int32 has dtype {out.dtype}"
    )
    ctx.check_close(out, 7 / 3, dtype="float32")


@case("keepdims")
def mean_keepdims(ctx):
    import jax.numpy as jnp

    x = ctx.rng.standard_normal((4, 5)).astype("float32")
    out = ctx.measure(jnp.mean, ctx.put(x), axis=1, keepdims=True)
    ctx.check_close(out, x.astype("float64").mean(axis=1, keepdims=True), dtype="float32")


@case("grad-is-one-over-n")
def mean_grad(ctx):
    import jax
    import jax.numpy as jnp

    out = ctx.measure(jax.grad(jnp.mean), ctx.put(np.ones((4, 4), dtype="float32")))
    ctx.check_close(out, np.full((4, 4), 1 / 16), dtype="float32")


# Every dtype jnp.mean takes on the CPU (integers and bool average as floats), eager and
# under jax.jit, over an axis; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=BOOL + FEW_INTS + FLOATS + COMPLEX,
    mode=MODES,
)
def mean_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_reduction

    swept_reduction(ctx, jnp.mean, np.mean, dtype, mode)
