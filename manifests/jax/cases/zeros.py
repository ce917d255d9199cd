"""jax.numpy.zeros: shapes (scalar, empty, large), dtypes, placement on the device, jit."""

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
def zeros_values(ctx, shape, dtype):
    import jax.numpy as jnp

    # jnp.bool arrived after 0.4.13 (which has jnp.bool_).
    jdtype = jnp.bool_ if dtype == "bool" else getattr(jnp, dtype)
    out = ctx.measure(jnp.zeros, shape, dtype=jdtype)
    ctx.check(str(out.dtype) == dtype, f"dtype {out.dtype}, not {dtype}")
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype("float64"), np.zeros(shape))


@case("inside-jit")
def zeros_jit(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda x: x + jnp.zeros((3, 3)))
    ctx.check_close(ctx.measure(f, ctx.put(np.float32(1.5))), np.full((3, 3), 1.5), dtype="float32")


# Every dtype jnp.zeros makes on the CPU, eager and under jax.jit; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def zeros_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp

    out = ctx.measure(ctx.in_mode(mode, lambda: jnp.zeros((5, 7), dtype=dtype)))
    ctx.check(str(out.dtype) == dtype, f"dtype {out.dtype}, not {dtype}", "type")
    ctx.check_equal(out, np.zeros((5, 7)))
