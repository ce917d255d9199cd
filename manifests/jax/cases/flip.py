"""jax.numpy.flip: all axes, one axis, several axes, dtypes, jit, gradient."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, MODES

from portbench_runner.api import case, sweep


@case("all-axes", axis=None)
@case("axis0", axis=0)
@case("axes-0-2", axis=(0, 2))
@case("int32-axis1", axis=1, dtype="int32")
@case("bool-axis-last", axis=-1, dtype="bool")
@case("large", axis=0, shape=(1000, 1000))
def flip_values(ctx, axis, dtype="float32", shape=(4, 5, 6)):
    import jax.numpy as jnp

    x = (
        (ctx.rng.standard_normal(shape) * 10).astype(dtype)
        if dtype != "bool"
        else ctx.rng.random(shape) > 0.5
    )
    ctx.check_equal(ctx.measure(jnp.flip, ctx.put(x), axis=axis), np.flip(x, axis=axis))


@case("jit")
def flip_jit(ctx):
    import jax
    import jax.numpy as jnp

    x = np.arange(10, dtype="float64")
    ctx.check_equal(ctx.measure(jax.jit(jnp.flip), ctx.put(x)), x[::-1])


@case("grad-flips-back")
def flip_grad(ctx):
    import jax
    import jax.numpy as jnp

    w = ctx.put(np.arange(5, dtype="float32"))
    g = jax.grad(lambda v: jnp.sum(jnp.flip(v) * w))
    ctx.check_close(
        ctx.measure(g, ctx.put(np.zeros(5, dtype="float32"))),
        [4.0, 3.0, 2.0, 1.0, 0.0],
        dtype="float32",
    )


# Every dtype jnp.flip moves on the CPU (it only reorders: exact), eager and under jax.jit;
# new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def flip_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import draw, placed

    x, exact = placed(ctx, draw(ctx, (3, 4, 5), dtype, 0, 9), dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda v: jnp.flip(v, axis=1)), x)
    ctx.check(str(out.dtype) == dtype, f"flip of {dtype} gave {out.dtype}")
    ctx.check_equal(out, np.flip(exact, axis=1).astype(out.dtype))


# The study's other kinds of paths: the documented error for a bad axis (exact type and
# message), the Hessian of sum(flip(x)**3) (flip only moves elements: diag(6x)) in float32
# and float64, and jax.vmap along a leading and an inner axis, eager and under jax.jit. New
# names; the cases above keep their ids.
@case("error-axis-out-of-range")
def flip_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    check_raises(ctx, lambda: jnp.flip(x, axis=2), ValueError, r"axis 2 is out of bounds")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def flip_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import selection_hessian, swept_hessian

    f, href = selection_hessian(lambda v: jnp.flip(v, axis=1), lambda v: np.flip(v, axis=1), (3, 4))
    swept_hessian(ctx, f, href, dtype, mode, shape=(3, 4))


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def flip_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(
        ctx,
        lambda x: jnp.flip(x, axis=0),
        lambda x: np.flip(x, axis=0),
        "float32",
        mode,
        in_axis=axis,
    )
