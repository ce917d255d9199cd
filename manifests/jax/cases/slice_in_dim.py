"""jax.lax.slice_in_dim: start/limit/stride along one axis, negative axis, jit, gradient."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

from portbench_runner.api import case, sweep


@case("axis0", start=1, limit=5, stride=1, axis=0)
@case("axis1-stride2", start=0, limit=10, stride=2, axis=1)
@case("axis-minus1", start=3, limit=9, stride=3, axis=-1)
@case("int32", start=2, limit=4, stride=1, axis=0, dtype="int32")
@case("large", start=100, limit=900, stride=1, axis=0, shape=(1000, 1000))
def slice_in_dim_values(ctx, start, limit, stride, axis, dtype="float32", shape=(8, 12)):
    import jax

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    out = ctx.measure(jax.lax.slice_in_dim, ctx.put(x), start, limit, stride, axis)
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, limit, stride)
    ctx.check_equal(out, x[tuple(index)])


@case("grad-pads-with-zeros")
def slice_in_dim_grad(ctx):
    import jax
    import jax.numpy as jnp

    g = jax.grad(lambda v: jnp.sum(jax.lax.slice_in_dim(v, 1, 3)))
    ctx.check_close(
        ctx.measure(g, ctx.put(np.zeros(5, dtype="float32"))), [0, 1, 1, 0, 0], dtype="float32"
    )


# Every dtype lax.slice_in_dim slices (strided, axis 1) on the CPU (exact), eager and under jax.jit; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def slice_in_dim_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import swept_exact

    swept_exact(
        ctx,
        lambda x: jax.lax.slice_in_dim(x, 1, 6, stride=2, axis=1),
        lambda x: x[:, 1:6:2],
        dtype,
        mode,
    )
