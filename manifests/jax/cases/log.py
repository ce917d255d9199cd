"""jax.numpy.log: positive inputs, log(0) = -inf, negative gives nan, gradient, jit."""

import numpy as np
from _jaxhelp import grad_of_sum, unary

from portbench_runner.api import case


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
