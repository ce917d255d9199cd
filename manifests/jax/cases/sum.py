"""jax.numpy.sum: reductions over all and single axes, dtype promotion, empty inputs."""

import numpy as np
from _jaxhelp import BOOL, COMPLEX, FEW_INTS, FLOATS, FLOATS_32_64, GRAD_FLOATS, MODES

from portbench_runner.api import case, sweep


@case("float32-all", dtype="float32", axis=None)
@case("float64-axis0", dtype="float64", axis=0)
@case("int32-axis1", dtype="int32", axis=1)
@case("bfloat16-all", dtype="bfloat16", axis=None)
@case("float32-jit-axis1", dtype="float32", axis=1, jit=True)
def sum_values(ctx, dtype, axis, jit=False):
    import jax.numpy as jnp

    if dtype == "int32":
        x = ctx.rng.integers(-100, 100, size=(64, 128)).astype("int32")
    else:
        x = ctx.rng.standard_normal((64, 128)).astype("float32" if dtype == "bfloat16" else dtype)
    fn = ctx.compiled(jnp.sum, static_argnames="axis") if jit else jnp.sum
    out = ctx.measure(fn, ctx.put(x, dtype=dtype), axis=axis)
    reference = x.astype("float64").sum(axis=axis)
    if dtype == "int32":
        ctx.check_equal(out, x.sum(axis=axis, dtype="int64"))
    else:
        # A sum of n terms carries about sqrt(n) rounding errors of the dtype.
        rtol = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 5e-2}[dtype]
        ctx.check_close(out, reference, rtol=rtol, atol=rtol * np.abs(x).sum() / x.size * 10)


@case("empty-is-zero")
def sum_empty(ctx):
    import jax.numpy as jnp

    out = ctx.measure(jnp.sum, ctx.put(np.zeros((0, 3), dtype="float32")), axis=0)
    ctx.check_close(out, np.zeros(3), dtype="float32")


@case("bool-counts")
def sum_bool(ctx):
    import jax.numpy as jnp

    x = ctx.rng.random(1000) > 0.5
    out = ctx.measure(jnp.sum, ctx.put(x))
    ctx.check_equal(out, int(x.sum()))


# Every dtype jnp.sum takes on the CPU (bool and narrow integers accumulate in the default
# integer, as NumPy's sum does), eager and under jax.jit, over an axis and with keepdims;
# new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-{form}-sweep",
    dtype=BOOL + FEW_INTS + FLOATS + COMPLEX,
    mode=MODES,
    form=["axis1", "keepdims"],
)
def sum_dtypes(ctx, dtype, mode, form):
    import jax.numpy as jnp
    from _jaxhelp import swept_reduction

    swept_reduction(ctx, jnp.sum, np.sum, dtype, mode, keepdims=form == "keepdims")


@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def sum_grad_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad

    swept_grad(ctx, lambda x: jnp.sum(x * x, axis=0), lambda x: 2 * x, dtype, mode)


# The study's other kinds of paths: the documented errors for bad axes (out of range,
# repeated: exact type and message), the full grid of sum's flags (axis x keepdims x where
# x initial) under jax.jit, the Hessian of sum(x)**2 (2 everywhere: sum transposed twice)
# in float32 and float64, and jax.vmap along a leading and an inner axis, eager and under
# jax.jit. New names; the cases above keep their ids.
@sweep("error-{form}", form=["axis-out-of-range", "repeated-axis"])
def sum_errors(ctx, form):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    if form == "axis-out-of-range":
        check_raises(ctx, lambda: jnp.sum(x, axis=2), ValueError, r"axis 2 is out of bounds")
    else:
        check_raises(ctx, lambda: jnp.sum(x, axis=(0, 0)), ValueError, r"duplicate value in 'axis'")


@sweep(
    "flags-axis-{axis}-{keepdims}-where-{where}-initial-{initial}-sweep",
    axis=["all", "0", "1", "both"],
    keepdims=["keep", "drop"],
    where=["none", "mask"],
    initial=["none", "value"],
)
def sum_flags(ctx, axis, keepdims, where, initial):
    import jax.numpy as jnp
    from _jaxhelp import reduction_flags

    kw = {} if initial == "none" else {"initial": 2.5}
    reduction_flags(ctx, jnp.sum, np.sum, "float32", axis, keepdims, where, **kw)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def sum_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_hessian

    swept_hessian(
        ctx, lambda v: jnp.sum(v) ** 2, lambda x: np.full((x.size, x.size), 2.0), dtype, mode
    )


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def sum_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(
        ctx,
        lambda x: jnp.sum(x, axis=-1),
        lambda x: np.sum(x, axis=-1),
        "float32",
        mode,
        in_axis=axis,
        scale=4.0,
    )
