"""jax.numpy.average: plain and weighted means, axes, returned weights sum, jit."""

import numpy as np
from _jaxhelp import BOOL, COMPLEX, FEW_INTS, FLOATS, FLOATS_32_64, GRAD_FLOATS, MODES, reduction

from portbench_runner.api import case, sweep


@case("float32-all", dtype="float32", axis=None)
@case("float64-axis0", dtype="float64", axis=0)
@case("float32-axis1-jit", dtype="float32", axis=1, jit=True)
@case("bfloat16-all", dtype="bfloat16", axis=None)
def average_plain(ctx, dtype, axis, jit=False):
    import jax.numpy as jnp

    reduction(ctx, jnp.average, np.average, dtype=dtype, axis=axis, jit=jit)


@case("weighted-axis1")
@case("weighted-returned", returned=True)
def average_weighted(ctx, returned=False):
    import jax.numpy as jnp

    x = ctx.rng.standard_normal((16, 32))
    w = ctx.rng.uniform(0.1, 1.0, (16, 32))
    out = ctx.measure(jnp.average, ctx.put(x), axis=1, weights=ctx.put(w), returned=returned)
    expected = np.average(x, axis=1, weights=w, returned=returned)
    if returned:
        ctx.check_close(out[0], expected[0], dtype="float64")
        ctx.check_close(out[1], expected[1], dtype="float64", what="sum of weights")
    else:
        ctx.check_close(out, expected, dtype="float64")


@case("grad-is-one-over-n")
def average_grad(ctx):
    import jax
    import jax.numpy as jnp

    out = ctx.measure(jax.grad(jnp.average), ctx.put(np.ones(8, dtype="float32")))
    ctx.check_close(out, np.full(8, 1 / 8), dtype="float32")


# Every dtype jnp.average takes on the CPU (bool and integers average as floats), eager and
# under jax.jit, plain over an axis and weighted (weights of the same dtype, from 1 so they
# never sum to zero; bool weights would); new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-{form}-sweep",
    dtype=BOOL + FEW_INTS + FLOATS + COMPLEX,
    mode=MODES,
    form=("axis1", "weighted"),
    exclude=[{"dtype": "bool", "form": "weighted"}],
)
def average_dtypes(ctx, dtype, mode, form):
    import jax.numpy as jnp
    from _jaxhelp import check_swept, draw, placed

    x, exact = placed(ctx, draw(ctx, (12, 16), dtype, 0 if dtype.startswith("u") else -9, 9), dtype)
    if form == "axis1":
        out = ctx.measure(ctx.in_mode(mode, lambda v: jnp.average(v, axis=1)), x)
        expected = np.average(
            exact.astype("complex128" if exact.dtype.kind == "c" else "float64"), axis=1
        )
    else:
        w, w_exact = placed(ctx, draw(ctx, (12, 16), dtype, 1, 4), dtype)
        out = ctx.measure(ctx.in_mode(mode, lambda v, u: jnp.average(v, axis=1, weights=u)), x, w)
        expected = np.average(exact, axis=1, weights=w_exact)
    check_swept(ctx, out, expected, scale=4.0)


# d/dx of average(x * x) over n terms is 2x / n.
@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def average_grad_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad

    swept_grad(ctx, lambda x: jnp.average(x * x), lambda x: 2 * x / x.size, dtype, mode)


# The study's other kinds of paths: the documented error for weights whose shape differs
# without an axis (exact type and message), the full grid of average's flags (axis x
# weights x returned x keepdims) under jax.jit, the Hessian of average(x**2, weights=w)
# (diag(2w / sum w)) in float32 and float64, and jax.vmap along a leading and an inner axis,
# eager and under jax.jit. New names; the cases above keep their ids.
@case("error-weights-shape-without-axis")
def average_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    w = ctx.put(np.ones(3, dtype="float32"))
    check_raises(
        ctx,
        lambda: jnp.average(x, weights=w),
        ValueError,
        r"Axis must be specified when shapes of a and weights differ",
    )


@sweep(
    "flags-axis-{axis}-weights-{weights}-{returned}-{keepdims}-sweep",
    axis=["all", "0", "1"],
    weights=["none", "array"],
    returned=["returned", "value-only"],
    keepdims=["keep", "drop"],
)
def average_flags(ctx, axis, weights, returned, keepdims):
    import jax.numpy as jnp
    from _jaxhelp import GRID_AXES, check_swept, placed

    x, exact = placed(ctx, ctx.rng.uniform(-3, 3, (4, 6)).astype("float32"), "float32")
    flags = {
        "axis": GRID_AXES[axis],
        "returned": returned == "returned",
        "keepdims": keepdims == "keep",
    }
    w = ctx.rng.uniform(0.5, 2.0, (4, 6)).astype("float32") if weights == "array" else None
    jw = None if w is None else ctx.put(w)
    out = ctx.measure(ctx.compiled(lambda v, u: jnp.average(v, weights=u, **flags)), x, jw)
    expected = np.average(exact, weights=None if w is None else w.astype("float64"), **flags)
    if flags["returned"]:
        check_swept(ctx, out[0], expected[0], scale=6.0)
        check_swept(ctx, out[1], expected[1], scale=6.0)
    else:
        check_swept(ctx, out, expected, scale=6.0)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def average_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_hessian

    w = np.linspace(0.5, 2.0, 12)
    wd = ctx.put(w.astype(dtype))
    swept_hessian(
        ctx,
        lambda v: jnp.average(v**2, weights=wd),
        lambda x: np.diag(2 * w / w.sum()),
        dtype,
        mode,
    )


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def average_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(
        ctx,
        lambda x: jnp.average(x, axis=-1),
        lambda x: np.average(x, axis=-1),
        "float32",
        mode,
        in_axis=axis,
        scale=4.0,
    )
