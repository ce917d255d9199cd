"""jax.numpy.size: element counts of arrays, along axes, of scalars and Python sequences."""

import numpy as np

from portbench_runner.api import case


@case("2d", shape=(6, 7))
@case("axis1", shape=(6, 7), axis=1)
@case("empty", shape=(0, 9))
@case("scalar", shape=())
@case("large", shape=(1000, 1000))
def size_of_arrays(ctx, shape, axis=None):
    import jax.numpy as jnp

    x = ctx.put(np.zeros(shape, dtype="float32"))
    ctx.check_equal(ctx.measure(jnp.size, x, axis), np.size(np.zeros(shape), axis))


@case("python-list")
def size_of_list(ctx):
    import jax.numpy as jnp

    ctx.check_equal(ctx.measure(jnp.size, [[1, 2, 3], [4, 5, 6]]), 6)


@case("under-jit-is-static")
def size_jit(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda x: x * jnp.size(x))
    ctx.check_close(
        ctx.measure(f, ctx.put(np.ones((2, 5), dtype="float32"))),
        np.full((2, 5), 10.0),
        dtype="float32",
    )
