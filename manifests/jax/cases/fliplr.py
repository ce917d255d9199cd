"""jax.numpy.fliplr: reverses the second axis; 2-d and n-d inputs; 1-d is refused; jit."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

from portbench_runner.api import case, sweep


@case("float32-2d", shape=(6, 7))
@case("float64-3d", shape=(3, 4, 5), dtype="float64")
@case("int32-2d", shape=(8, 3), dtype="int32")
@case("large", shape=(1000, 1000))
def fliplr_values(ctx, shape, dtype="float32"):
    import jax.numpy as jnp

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    ctx.check_equal(ctx.measure(jnp.fliplr, ctx.put(x)), np.fliplr(x))


@case("jit")
def fliplr_jit(ctx):
    import jax
    import jax.numpy as jnp

    x = np.arange(6, dtype="float32").reshape(2, 3)
    ctx.check_equal(ctx.measure(jax.jit(jnp.fliplr), ctx.put(x)), np.fliplr(x))


@case("one-d-is-refused")
def fliplr_1d(ctx):
    import jax.numpy as jnp

    x = ctx.put(np.arange(4, dtype="float32"))

    def attempt():
        try:
            jnp.fliplr(x)
        except ValueError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "fliplr accepted a 1-d input")


# Every dtype jnp.fliplr moves on the CPU (exact), eager and under jax.jit; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def fliplr_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_exact

    swept_exact(ctx, jnp.fliplr, np.fliplr, dtype, mode)
