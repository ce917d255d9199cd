"""jax.numpy.reshape: shapes with -1, orders C and F, Array.reshape, empty, jit, gradient."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

from portbench_runner.api import case, sweep


@case("float32-2d-to-3d", shape=(12, 10), new=(3, 4, 10))
@case("infer-minus-one", shape=(6, 8), new=(-1, 4))
@case("to-flat", shape=(5, 5, 5), new=(-1,))
@case("empty", shape=(0, 4), new=(2, 0, 2))
@case("large", shape=(1000, 1000), new=(500, 2000))
def reshape_c(ctx, shape, new):
    import jax.numpy as jnp

    x = ctx.rng.standard_normal(shape).astype("float32")
    ctx.check_equal(ctx.measure(jnp.reshape, ctx.put(x), new), x.reshape(new))


@case("order-F")
def reshape_f(ctx):
    import jax.numpy as jnp

    x = np.arange(24, dtype="int32").reshape(4, 6)
    ctx.check_equal(
        ctx.measure(jnp.reshape, ctx.put(x), (6, 4), order="F"), x.reshape((6, 4), order="F")
    )


@case("array-method-jit")
def reshape_method(ctx):
    import jax

    x = np.arange(12, dtype="float64")
    f = jax.jit(lambda v: v.reshape(3, 4))
    ctx.check_equal(ctx.measure(f, ctx.put(x)), x.reshape(3, 4))


@case("grad-reshapes-back")
def reshape_grad(ctx):
    import jax
    import jax.numpy as jnp

    w = np.arange(12, dtype="float32").reshape(3, 4)
    weights = ctx.put(w)
    g = jax.grad(lambda v: jnp.sum(jnp.reshape(v, (3, 4)) * weights))
    ctx.check_close(
        ctx.measure(g, ctx.put(np.zeros(12, dtype="float32"))), w.reshape(12), dtype="float32"
    )


# Every dtype jnp.reshape moves (with a -1 dimension) on the CPU (exact), eager and under jax.jit; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def reshape_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_exact

    swept_exact(ctx, lambda x: jnp.reshape(x, (-1, 10)), lambda x: x.reshape(-1, 10), dtype, mode)
