"""jax.numpy.size: element counts of arrays, along axes, of scalars and Python sequences."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

from portbench_runner.api import case, sweep


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


# jnp.size of an array of every dtype (it reads the shape, never the values), eager and
# under jax.jit (where it is a static Python int), whole and along an axis; new names, so
# the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def size_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import draw, placed

    x, _ = placed(ctx, draw(ctx, (3, 0, 5) if dtype == "bool" else (3, 4, 5), dtype, 0, 9), dtype)
    want = 0 if dtype == "bool" else 60  # bool: an empty array, whose size is 0
    # Under jit the sizes must be static: they are folded into the output's shape.
    out = ctx.measure(ctx.in_mode(mode, lambda v: jnp.zeros((jnp.size(v), jnp.size(v, 2)))), x)
    ctx.check(tuple(out.shape) == (want, 5), f"sizes {tuple(out.shape)}, not {(want, 5)}", "other")
