"""jax.numpy.cos: eager and jitted across dtypes and sizes, its gradient, vmap."""

import numpy as np
from _jaxhelp import (
    COMPLEX,
    FEW_INTS,
    FLOATS,
    FLOATS_32_64,
    GRAD_FLOATS,
    MODES,
    grad_of_sum,
    unary,
    vmapped,
)

from portbench_runner.api import case, sweep


@case("float32-eager", dtype="float32")
@case("float64-eager", dtype="float64")
@case("bfloat16-eager", dtype="bfloat16")
@case("float32-jit", dtype="float32", jit=True)
@case("float32-large-jit", dtype="float32", shape=(1_000_000,), jit=True)
@case("float32-empty", dtype="float32", shape=(0,))
def cos_values(ctx, dtype, shape=(1024,), jit=False):
    import jax.numpy as jnp

    unary(ctx, jnp.cos, np.cos, dtype=dtype, shape=shape, jit=jit, lo=-10, hi=10)


@case("grad-is-minus-sin")
def cos_grad(ctx):
    import jax.numpy as jnp

    grad_of_sum(ctx, jnp.cos, lambda x: -np.sin(x))


@case("vmap-rows")
def cos_vmap(ctx):
    import jax.numpy as jnp

    vmapped(ctx, jnp.cos, np.cos)


# Every dtype jnp.cos takes on the CPU (integers promote to a float), eager and under
# jax.jit, and its gradient in each float width; new names, so the cases above
# keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOATS + COMPLEX + FEW_INTS,
    mode=MODES,
)
def cos_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import INTS, swept_unary

    ints = dtype in INTS
    swept_unary(
        ctx,
        jnp.cos,
        np.cos,
        dtype,
        mode,
        lo=-5 if ints else -3,
        hi=5 if ints else 3,
        scale=1.0,
    )


@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def cos_grad_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad

    swept_grad(ctx, jnp.cos, lambda x: -np.sin(x), dtype, mode, lo=-3, hi=3, scale=1.0)


# The study's other kinds of paths: the documented error for a bad argument (exact type and
# message), the second derivative (grad of grad) in float32 and float64, and jax.vmap along
# a leading and an inner axis, eager and under jax.jit. New names; the cases above keep
# their ids.
@case("error-list-input")
def cos_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    check_raises(ctx, lambda: jnp.cos([1.0, 2.0]), TypeError, r"cos requires ndarray or scalar")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def cos_grad2(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad2

    swept_grad2(ctx, jnp.cos, lambda x: -np.cos(x), dtype, mode)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def cos_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(ctx, jnp.cos, np.cos, "float32", mode, in_axis=axis)
