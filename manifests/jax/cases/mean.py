"""jax.numpy.mean: axes, dtype promotion of integers, keepdims, empty input, gradient."""

import numpy as np
from _jaxhelp import BOOL, COMPLEX, FEW_INTS, FLOATS, FLOATS_32_64, MODES, reduction

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


# The study's other kinds of paths: the documented error for a bad argument (a Python list:
# exact type and message), the full grid of mean's flags (axis x keepdims x where) under
# jax.jit, the Hessian of mean(x)**2 (2/n**2 everywhere) in float32 and float64, and
# jax.vmap along a leading and an inner axis, eager and under jax.jit. New names; the cases
# above keep their ids.
@case("error-list-input")
def mean_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    check_raises(ctx, lambda: jnp.mean([1.0, 2.0]), TypeError, r"mean requires ndarray or scalar")


@sweep(
    "flags-axis-{axis}-{keepdims}-where-{where}-sweep",
    axis=["all", "0", "1", "both"],
    keepdims=["keep", "drop"],
    where=["none", "mask"],
)
def mean_flags(ctx, axis, keepdims, where):
    import jax.numpy as jnp
    from _jaxhelp import reduction_flags

    reduction_flags(ctx, jnp.mean, np.mean, "float32", axis, keepdims, where)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def mean_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_hessian

    swept_hessian(
        ctx,
        lambda v: jnp.mean(v) ** 2,
        lambda x: np.full((x.size, x.size), 2.0 / x.size**2),
        dtype,
        mode,
    )


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def mean_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(
        ctx,
        lambda x: jnp.mean(x, axis=-1),
        lambda x: np.mean(x, axis=-1),
        "float32",
        mode,
        in_axis=axis,
        scale=4.0,
    )
