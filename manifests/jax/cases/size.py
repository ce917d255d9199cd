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


# The study's other kind of path here: jnp.size under jax.vmap (the size of one example, a
# static int, folded into the output's shape), eager and under jax.jit. Its error for an
# axis out of range changed type between 0.4.13 (IndexError) and 0.10.2 (ValueError) at a
# release not pinned down here, so it has no error case. New names; the cases above keep
# their ids.
@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def size_vmap(ctx, axis, mode):
    import jax
    import jax.numpy as jnp

    def f(v):
        return jnp.zeros((jnp.size(v), jnp.size(v, 0))) + jnp.sum(v)

    x = ctx.rng.uniform(-2, 2, (6, 5, 7)).astype("float32")
    out = ctx.measure(ctx.in_mode(mode, jax.vmap(f, in_axes=axis)), ctx.put(x))
    one = np.take(x, 0, axis=axis)
    ctx.check(
        tuple(out.shape) == (x.shape[axis], one.size, one.shape[0]),
        f"shape {tuple(out.shape)}",
        "other",
    )
    ctx.check_close(
        out[:, 0, 0],
        np.moveaxis(x, axis, 0).reshape(x.shape[axis], -1).sum(axis=1),
        dtype="float32",
        rtol=1e-5,
        atol=1e-4,
    )
