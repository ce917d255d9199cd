"""jax.numpy.arange: integer and float ranges, negative steps, dtypes, empty ranges, jit."""

import numpy as np
from _jaxhelp import ALL_NUMERIC, FLOATS, MODES, np_dtype

from portbench_runner.api import case, sweep


@case("int-stop", args=(10,))
@case("int-start-stop-step", args=(3, 40, 7))
@case("negative-step", args=(10, -10, -3))
@case("float-step", args=(0.0, 1.0, 0.125))
@case("empty", args=(5, 5))
@case("large", args=(1_000_000,))
def arange_values(ctx, args):
    import jax.numpy as jnp

    with ctx.on_device():
        out = ctx.measure(jnp.arange, *args)
    ctx.check_close(out, np.arange(*args), dtype="float64")


@case("dtype-float64", dtype="float64")
@case("dtype-bfloat16", dtype="bfloat16")
@case("dtype-int32", dtype="int32")
def arange_dtype(ctx, dtype):
    import jax.numpy as jnp

    out = ctx.measure(jnp.arange, 16, dtype=getattr(jnp, dtype))
    ctx.check(str(out.dtype) == dtype, f"arange(dtype={dtype}) gave {out.dtype}")
    ctx.check_close(out, np.arange(16), dtype="float64")


@case("inside-jit-static")
def arange_jit(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda x: x * jnp.arange(8))
    ctx.check_close(ctx.measure(f, ctx.put(np.float32(2.0))), np.arange(8) * 2.0, dtype="float32")


# Every dtype jnp.arange builds on the CPU (all but bool, which iota refuses), eager and as
# a constant inside jax.jit, over a positive-step range every dtype holds exactly; new
# names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=ALL_NUMERIC, mode=MODES)
def arange_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp

    fn = ctx.in_mode(mode, lambda: jnp.arange(3, 40, 7, dtype=np_dtype(dtype)))
    with ctx.on_device():
        out = ctx.measure(fn)
    ctx.check(str(out.dtype) == dtype, f"arange(dtype={dtype}) gave {out.dtype}", "type")
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype("complex128"), np.arange(3, 40, 7))


# Fractional and negative steps in each float width: the values are start + i * step
# rounded once to the dtype (bfloat16 holds multiples of 0.25 up to 8 exactly).
@sweep("float-step-{dtype}-{mode}-sweep", dtype=FLOATS, mode=MODES)
def arange_float_steps(ctx, dtype, mode):
    import jax.numpy as jnp

    fn = ctx.in_mode(mode, lambda: jnp.arange(6.0, -2.0, -0.25, dtype=np_dtype(dtype)))
    with ctx.on_device():
        out = ctx.measure(fn)
    ctx.check(str(out.dtype) == dtype, f"arange(dtype={dtype}) gave {out.dtype}", "type")
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype("float64"), np.arange(6.0, -2.0, -0.25))


# The study's other kinds of paths: the documented errors for bad arguments (a zero step; a
# traced stop under jax.jit, where the length must be static: exact type and message). New
# names; the cases above keep their ids.
@sweep("error-{form}", form=["zero-step", "traced-stop"])
def arange_errors(ctx, form):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    if form == "zero-step":
        check_raises(ctx, lambda: jnp.arange(0, 10, 0), ZeroDivisionError, r"division by zero")
    else:
        f = jax.jit(jnp.arange)
        check_raises(
            ctx, lambda: f(5), jax.errors.ConcretizationTypeError, r"jnp\.arange argument 'stop'"
        )
