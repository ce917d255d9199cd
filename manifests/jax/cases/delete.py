"""jax.numpy.delete: remove entries by index, slice or index list, along an axis."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

from portbench_runner.api import case, sweep


@case("index-flat", obj=3, axis=None)
@case("index-axis0", obj=1, axis=0)
@case("list-axis1", obj=[0, 2, 4], axis=1)
@case("negative-index-axis1", obj=-1, axis=1)
@case("int32-list-flat", obj=[1, 5, 7], axis=None, dtype="int32")
@case("large", obj=[0, 500, 999], axis=0, shape=(1000, 1000))
def delete_values(ctx, obj, axis, dtype="float32", shape=(5, 6)):
    import jax.numpy as jnp

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    # JAX takes index lists as arrays (it refuses Python lists, unlike NumPy).
    index = ctx.put(np.array(obj)) if isinstance(obj, list) else obj
    ctx.check_equal(
        ctx.measure(jnp.delete, ctx.put(x), index, axis=axis), np.delete(x, obj, axis=axis)
    )


@case("slice-axis0")
def delete_slice(ctx):
    import jax.numpy as jnp

    x = np.arange(20, dtype="float64").reshape(10, 2)
    ctx.check_equal(
        ctx.measure(jnp.delete, ctx.put(x), slice(2, 8, 2), axis=0),
        np.delete(x, slice(2, 8, 2), axis=0),
    )


@case("jit-static-indices")
def delete_jit(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda v: jnp.delete(v, jnp.array([0, 3]), assume_unique_indices=True))
    x = np.arange(6, dtype="float32")
    ctx.check_equal(ctx.measure(f, ctx.put(x)), np.delete(x, [0, 3]))


# Every dtype jnp.delete takes on the CPU (it moves values: exact), eager and under jax.jit
# (a static index, so the output's shape is known), along an axis; new names, so the cases
# above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def delete_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_exact

    swept_exact(
        ctx, lambda v: jnp.delete(v, 2, axis=1), lambda v: np.delete(v, 2, axis=1), dtype, mode
    )
