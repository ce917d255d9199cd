"""jax.numpy.cos: eager and jitted across dtypes and sizes, its gradient, vmap."""

import numpy as np
from _jaxhelp import grad_of_sum, unary, vmapped

from portbench_runner.api import case


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
