"""jax.numpy.ones: shapes (scalar, empty, large), dtypes, placement on the device, jit."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

from portbench_runner.api import case, sweep


@case("float32-2d", shape=(64, 32), dtype="float32")
@case("float64-3d", shape=(4, 5, 6), dtype="float64")
@case("int32", shape=(100,), dtype="int32")
@case("bool", shape=(7,), dtype="bool")
@case("bfloat16", shape=(16, 16), dtype="bfloat16")
@case("scalar", shape=(), dtype="float32")
@case("empty", shape=(0, 3), dtype="float32")
@case("large", shape=(1000, 1000), dtype="float32")
def ones_values(ctx, shape, dtype):
    import jax.numpy as jnp

    # jnp.bool arrived after 0.4.13 (which has jnp.bool_).
    jdtype = jnp.bool_ if dtype == "bool" else getattr(jnp, dtype)
    out = ctx.measure(jnp.ones, shape, dtype=jdtype)
    ctx.check(str(out.dtype) == dtype, f"dtype {out.dtype}, not {dtype}")
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype("float64"), np.ones(shape))


@case("inside-jit")
def ones_jit(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda x: x + jnp.ones((3, 3)))
    ctx.check_close(ctx.measure(f, ctx.put(np.float32(1.5))), np.full((3, 3), 2.5), dtype="float32")


# Every dtype jnp.ones makes on the CPU, eager and under jax.jit; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def ones_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp

    out = ctx.measure(ctx.in_mode(mode, lambda: jnp.ones((5, 7), dtype=dtype)))
    ctx.check(str(out.dtype) == dtype, f"dtype {out.dtype}, not {dtype}", "type")
    ctx.check_equal(out, np.ones((5, 7)))


# The study's other kinds of paths: the documented errors for bad shapes (a negative
# dimension, a float one: exact type and message). New names; the cases above keep their
# ids.
@sweep("error-{form}", form=["negative-dimension", "float-dimension"])
def ones_errors(ctx, form):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    if form == "negative-dimension":
        check_raises(
            ctx, lambda: jnp.ones((-1, 2)), TypeError, r"must have every element be nonnegative"
        )
    else:
        check_raises(
            ctx,
            lambda: jnp.ones((2.5,)),
            TypeError,
            r"Shapes must be 1D sequences of concrete values of integer type",
        )
