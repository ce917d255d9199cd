"""jax.lax.slice_in_dim: start/limit/stride along one axis, negative axis, jit, gradient."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, MODES

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


# The study's other kinds of paths: the documented errors for bounds outside the axis or in
# the wrong order (exact type and message), index forms against Python slicing (a negative
# start or limit, an open limit, a stride), the Hessian of sum(slice**3) (diag(6x) on the
# kept elements) in float32 and float64, and jax.vmap along a leading and an inner axis,
# eager and under jax.jit. New names; the cases above keep their ids.
@sweep("error-{form}", form=["limit-past-end", "start-after-limit"])
def slice_in_dim_errors(ctx, form):
    from _jaxhelp import check_raises
    from jax import lax

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    if form == "limit-past-end":
        check_raises(
            ctx,
            lambda: lax.slice_in_dim(x, 0, 10, axis=0),
            TypeError,
            r"limit_indices must be less than or equal to operand shape",
        )
    else:
        check_raises(
            ctx,
            lambda: lax.slice_in_dim(x, 2, 1, axis=0),
            TypeError,
            r"limit_indices must be greater than or equal to start_indices",
        )


@sweep(
    "index-{form}-{mode}-sweep",
    form=["negative-start", "negative-limit", "open-limit", "stride-3"],
    mode=MODES,
)
def slice_in_dim_index_forms(ctx, form, mode):
    from jax import lax

    x = np.arange(40, dtype="float32").reshape(4, 10)
    start, limit, stride = {
        "negative-start": (-4, None, 1),
        "negative-limit": (1, -2, 1),
        "open-limit": (3, None, 1),
        "stride-3": (1, 10, 3),
    }[form]
    fn = ctx.in_mode(mode, lambda v: lax.slice_in_dim(v, start, limit, stride, axis=1))
    out = ctx.measure(fn, ctx.put(x))
    ctx.check_equal(out, x[:, slice(start, limit, stride)])


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def slice_in_dim_hessian(ctx, dtype, mode):
    from _jaxhelp import selection_hessian, swept_hessian
    from jax import lax

    f, href = selection_hessian(
        lambda v: lax.slice_in_dim(v, 1, 4, 2, axis=1), lambda v: v[:, 1:4:2], (3, 5)
    )
    swept_hessian(ctx, f, href, dtype, mode, shape=(3, 5))


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def slice_in_dim_vmap_axes(ctx, axis, mode):
    from _jaxhelp import swept_vmap
    from jax import lax

    swept_vmap(
        ctx,
        lambda x: lax.slice_in_dim(x, 1, 5, 2, axis=1),
        lambda x: x[:, 1:5:2],
        "float32",
        mode,
        in_axis=axis,
    )
