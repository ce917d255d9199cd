"""jax.numpy.tril: lower triangle with offsets k, batches, non-square, dtypes, gradient."""

import numpy as np

from portbench_runner.api import case


@case("square-k0", shape=(8, 8), k=0)
@case("wide-k2", shape=(5, 9), k=2)
@case("tall-k-minus1", shape=(9, 4), k=-1)
@case("batched-float64", shape=(3, 6, 6), k=0, dtype="float64")
@case("int32", shape=(7, 7), k=1, dtype="int32")
@case("large", shape=(1000, 1000), k=0)
def tril_values(ctx, shape, k, dtype="float32"):
    import jax.numpy as jnp

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    ctx.check_equal(ctx.measure(jnp.tril, ctx.put(x), k=k), np.tril(x, k=k))


@case("jit-static-k")
def tril_jit(ctx):
    import jax
    import jax.numpy as jnp

    x = np.ones((4, 4), dtype="float32")
    f = jax.jit(jnp.tril, static_argnames="k")
    ctx.check_equal(ctx.measure(f, ctx.put(x), k=1), np.tril(x, k=1))


@case("grad-is-mask")
def tril_grad(ctx):
    import jax
    import jax.numpy as jnp

    g = jax.grad(lambda v: jnp.sum(jnp.tril(v)))
    ctx.check_close(
        ctx.measure(g, ctx.put(np.zeros((4, 4), dtype="float32"))),
        np.tril(np.ones((4, 4))),
        dtype="float32",
    )
