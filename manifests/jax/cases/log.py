"""jax.numpy.log: positive inputs, log(0) = -inf, negative gives nan, gradient, jit."""

import numpy as np
from _jaxhelp import COMPLEX, FEW_INTS, FLOATS, FLOATS_32_64, GRAD_FLOATS, MODES, grad_of_sum, unary

from portbench_runner.api import case, sweep


@case("float32-eager", dtype="float32")
@case("float64-jit", dtype="float64", jit=True)
@case("bfloat16-eager", dtype="bfloat16")
@case("float32-large-jit", dtype="float32", shape=(1_000_000,), jit=True)
def log_values(ctx, dtype, shape=(1024,), jit=False):
    import jax.numpy as jnp

    unary(ctx, jnp.log, np.log, dtype=dtype, shape=shape, jit=jit, lo=0.01, hi=100)


@case("edges-zero-and-negative")
def log_edges(ctx):
    import jax.numpy as jnp

    out = ctx.to_numpy(ctx.measure(jnp.log, ctx.put(np.array([0.0, -1.0, 1.0], dtype="float32"))))
    ctx.check(
        np.isneginf(out[0]) and np.isnan(out[1]) and out[2] == 0.0, f"log([0, -1, 1]) gave {out}"
    )


@case("grad-is-reciprocal")
def log_grad(ctx):
    import jax.numpy as jnp

    grad_of_sum(ctx, jnp.log, lambda x: 1.0 / x, lo=0.5, hi=5)


# Every dtype jnp.log takes on the CPU (integers promote to a float), eager and under
# jax.jit, and its gradient in each float width; new names, so the cases above
# keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOATS + COMPLEX + FEW_INTS,
    mode=MODES,
)
def log_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import INTS, swept_unary

    ints = dtype in INTS
    swept_unary(
        ctx,
        jnp.log,
        np.log,
        dtype,
        mode,
        lo=1 if ints else 0.1,
        hi=9 if ints else 5,
        scale=1.0,
    )


@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def log_grad_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad

    swept_grad(ctx, jnp.log, lambda x: 1 / x, dtype, mode, lo=0.5, hi=5, scale=1.0)


# The study's other kinds of paths: the documented error for a bad argument (exact type and
# message), the second derivative (grad of grad, -1/x**2) in float32 and float64, and
# jax.vmap along a leading and an inner axis, eager and under jax.jit. New names; the cases
# above keep their ids.
@case("error-list-input")
def log_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    check_raises(ctx, lambda: jnp.log([1.0, 2.0]), TypeError, r"log requires ndarray or scalar")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def log_grad2(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad2

    swept_grad2(ctx, jnp.log, lambda x: -1.0 / x**2, dtype, mode, lo=0.5, hi=3.0)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def log_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(ctx, jnp.log, np.log, "float32", mode, in_axis=axis, lo=0.1, hi=5.0)
