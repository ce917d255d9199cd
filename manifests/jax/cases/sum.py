"""jax.numpy.sum: reductions over all and single axes, dtype promotion, empty inputs."""

import numpy as np
from _jaxhelp import BOOL, COMPLEX, FEW_INTS, FLOATS, GRAD_FLOATS, MODES

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
