"""jax.numpy.reshape: shapes with -1, orders C and F, Array.reshape, empty, jit, gradient."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, MODES

from portbench_runner.api import case, sweep


@case("float32-2d-to-3d", shape=(12, 10), new=(3, 4, 10))
@case("infer-minus-one", shape=(6, 8), new=(-1, 4))
@case("to-flat", shape=(5, 5, 5), new=(-1,))
@case("empty", shape=(0, 4), new=(2, 0, 2))
@case("large", shape=(1000, 1000), new=(500, 2000))
def reshape_c(ctx, shape, new):
    import jax.numpy as jnp

    x = ctx.rng.standard_normal(shape).astype("float32")
    ctx.check_equal(ctx.measure(jnp.reshape, ctx.put(x), new), x.reshape(new))


@case("order-F")
def reshape_f(ctx):
    import jax.numpy as jnp

    x = np.arange(24, dtype="int32").reshape(4, 6)
    ctx.check_equal(
        ctx.measure(jnp.reshape, ctx.put(x), (6, 4), order="F"), x.reshape((6, 4), order="F")
    )


@case("array-method-jit")
def reshape_method(ctx):
    import jax

    x = np.arange(12, dtype="float64")
    f = jax.jit(lambda v: v.reshape(3, 4))
    ctx.check_equal(ctx.measure(f, ctx.put(x)), x.reshape(3, 4))


@case("grad-reshapes-back")
def reshape_grad(ctx):
    import jax
    import jax.numpy as jnp

    w = np.arange(12, dtype="float32").reshape(3, 4)
    weights = ctx.put(w)
    g = jax.grad(lambda v: jnp.sum(jnp.reshape(v, (3, 4)) * weights))
    ctx.check_close(
        ctx.measure(g, ctx.put(np.zeros(12, dtype="float32"))), w.reshape(12), dtype="float32"
    )


# Every dtype jnp.reshape moves (with a -1 dimension) on the CPU (exact), eager and under jax.jit; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def reshape_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_exact

    swept_exact(ctx, lambda x: jnp.reshape(x, (-1, 10)), lambda x: x.reshape(-1, 10), dtype, mode)


# The study's other kinds of paths: the documented errors for bad arguments (an unknown
# order; a size that does not fit, whose error changed in jax 0.4.21: exact type and message
# per release), the full grid of order x where -1 stands, under jax.jit, the Hessian of
# sum(reshape(x)**3) (diag(6x)) in float32 and float64, and jax.vmap along a leading and an
# inner axis, eager and under jax.jit. New names; the cases above keep their ids.
@sweep("error-{form}", form=["unknown-order", "size-mismatch"])
def reshape_errors(ctx, form):
    import jax.numpy as jnp
    from _jaxhelp import check_raises, for_release

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    if form == "unknown-order":
        check_raises(
            ctx,
            lambda: jnp.reshape(x, (4, 3), order="K"),
            ValueError,
            r"Unexpected value for 'order'",
        )
        return
    from jax._src import core

    # Before 0.4.21 the shape arithmetic raised its own error; jnp.reshape checks sizes since.
    exc, pattern = for_release(
        ctx,
        (
            (
                "0.4",
                (
                    getattr(core, "InconclusiveDimensionOperation", None),
                    r"Cannot divide evenly the sizes of shapes \(3, 4\) and \(5, 3\)",
                ),
            ),
            (
                "0.4.21",
                (
                    TypeError,
                    r"cannot reshape array of shape \(3, 4\) \(size 12\) into shape \(5, 3\)",
                ),
            ),
        ),
    )
    check_raises(ctx, lambda: jnp.reshape(x, (5, 3)), exc, pattern)


@sweep(
    "flags-order-{order}-{shape}-sweep",
    order=["C", "F"],
    shape=["explicit", "minus-one-first", "minus-one-last"],
)
def reshape_flags(ctx, order, shape):
    import jax.numpy as jnp

    x = ctx.rng.standard_normal((4, 6)).astype("float32")
    new = {"explicit": (3, 8), "minus-one-first": (-1, 8), "minus-one-last": (3, -1)}[shape]
    out = ctx.measure(ctx.compiled(lambda v: jnp.reshape(v, new, order=order)), ctx.put(x))
    ctx.check_equal(out, np.reshape(x, new, order=order))


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def reshape_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import selection_hessian, swept_hessian

    f, href = selection_hessian(
        lambda v: jnp.reshape(v, (2, 6), order="F"),
        lambda v: np.reshape(v, (2, 6), order="F"),
        (3, 4),
    )
    swept_hessian(ctx, f, href, dtype, mode, shape=(3, 4))


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def reshape_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(
        ctx,
        lambda x: jnp.reshape(x, (-1,)),
        lambda x: np.reshape(x, (-1,)),
        "float32",
        mode,
        in_axis=axis,
    )
