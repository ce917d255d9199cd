"""jax.numpy.exp: values, overflow to inf, gradient, jit."""

import numpy as np
from _jaxhelp import COMPLEX, FEW_INTS, FLOATS, FLOATS_32_64, GRAD_FLOATS, MODES, grad_of_sum, unary

from portbench_runner.api import case, sweep


@case("float32-eager", dtype="float32")
@case("float64-jit", dtype="float64", jit=True)
@case("bfloat16-eager", dtype="bfloat16")
@case("float32-large-jit", dtype="float32", shape=(1_000_000,), jit=True)
def exp_values(ctx, dtype, shape=(1024,), jit=False):
    import jax.numpy as jnp

    unary(ctx, jnp.exp, np.exp, dtype=dtype, shape=shape, jit=jit, lo=-5, hi=5)


@case("overflow-is-inf")
def exp_overflow(ctx):
    import jax.numpy as jnp

    out = ctx.measure(jnp.exp, ctx.put(np.array([100.0, -200.0, 0.0], dtype="float32")))
    values = ctx.to_numpy(out)
    ctx.check(
        np.isinf(values[0]) and values[1] == 0.0 and values[2] == 1.0,
        f"exp([100, -200, 0]) gave {values}",
    )


@case("grad-is-exp")
def exp_grad(ctx):
    import jax.numpy as jnp

    grad_of_sum(ctx, jnp.exp, np.exp, lo=-2, hi=2)


# Every dtype jnp.exp takes on the CPU (integers promote to a float), eager and under
# jax.jit, and its gradient in each float width; new names, so the cases above
# keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOATS + COMPLEX + FEW_INTS,
    mode=MODES,
)
def exp_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_unary

    swept_unary(
        ctx,
        jnp.exp,
        np.exp,
        dtype,
        mode,
        lo=-5,
        hi=5,
        scale=1.0,
    )


@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def exp_grad_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad

    swept_grad(ctx, jnp.exp, np.exp, dtype, mode, lo=-2, hi=2, scale=1.0)


# The study's other kinds of paths: the documented error for a bad argument (exact type and
# message), the second derivative (grad of grad) in float32 and float64, and jax.vmap along
# a leading and an inner axis, eager and under jax.jit. New names; the cases above keep
# their ids.
@case("error-list-input")
def exp_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    check_raises(ctx, lambda: jnp.exp([1.0, 2.0]), TypeError, r"exp requires ndarray or scalar")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def exp_grad2(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad2

    swept_grad2(ctx, jnp.exp, np.exp, dtype, mode)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def exp_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(ctx, jnp.exp, np.exp, "float32", mode, in_axis=axis)
