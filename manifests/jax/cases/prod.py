"""jax.numpy.prod: products over axes, integer overflow wraps, empty is one, gradient."""

import numpy as np
from _jaxhelp import BOOL, COMPLEX, FEW_INTS, FLOATS, FLOATS_32_64, MODES, reduction

from portbench_runner.api import case, sweep


@case("float32-axis1", dtype="float32", axis=1)
@case("float64-all", dtype="float64", axis=None)
@case("bfloat16-axis0", dtype="bfloat16", axis=0)
@case("float32-jit-axis0", dtype="float32", axis=0, jit=True)
def prod_values(ctx, dtype, axis, jit=False):
    import jax.numpy as jnp

    # Factors near one keep the product of 64 terms representable in every dtype.
    rtol = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 6e-2}[dtype]
    reduction(
        ctx,
        jnp.prod,
        np.prod,
        dtype=dtype,
        axis=axis,
        jit=jit,
        shape=(16, 8),
        lo=0.8,
        hi=1.25,
        rtol=rtol,
    )


@case("int32-exact")
def prod_int(ctx):
    import jax.numpy as jnp

    x = np.arange(1, 11, dtype="int32")
    ctx.check_equal(ctx.measure(jnp.prod, ctx.put(x)), 3628800)


@case("empty-is-one")
def prod_empty(ctx):
    import jax.numpy as jnp

    ctx.check_close(
        ctx.measure(jnp.prod, ctx.put(np.zeros((0,), dtype="float32"))), 1.0, dtype="float32"
    )


@case("grad-is-product-of-others")
def prod_grad(ctx):
    import jax
    import jax.numpy as jnp

    x = np.array([2.0, 3.0, 4.0], dtype="float32")
    ctx.check_close(ctx.measure(jax.grad(jnp.prod), ctx.put(x)), [12.0, 8.0, 6.0], dtype="float32")


# Every dtype jnp.prod takes on the CPU, eager and under jax.jit, over an axis of 6 terms
# (values near 1, small integers, so nothing overflows); new names, so the cases above
# keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=BOOL + FEW_INTS + FLOATS + COMPLEX,
    mode=MODES,
)
def prod_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import INTS, swept_reduction

    lo, hi = ((0, 3) if dtype.startswith("u") else (-2, 3)) if dtype in INTS else (0.5, 1.5)
    swept_reduction(ctx, jnp.prod, np.prod, dtype, mode, lo=lo, hi=hi, shape=(8, 6))


# The study's other kinds of paths: the documented error for a bad axis (exact type and
# message), the full grid of prod's flags (axis x keepdims x where x initial) under jax.jit,
# the Hessian of prod(x) (prod / (x_i x_j) off the diagonal, 0 on it) in float32 and
# float64, and jax.vmap along a leading and an inner axis, eager and under jax.jit. New
# names; the cases above keep their ids.
@case("error-axis-out-of-range")
def prod_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    check_raises(ctx, lambda: jnp.prod(x, axis=2), ValueError, r"axis 2 is out of bounds")


@sweep(
    "flags-axis-{axis}-{keepdims}-where-{where}-initial-{initial}-sweep",
    axis=["all", "0", "1", "both"],
    keepdims=["keep", "drop"],
    where=["none", "mask"],
    initial=["none", "value"],
)
def prod_flags(ctx, axis, keepdims, where, initial):
    import jax.numpy as jnp
    from _jaxhelp import reduction_flags

    kw = {} if initial == "none" else {"initial": 1.5}
    reduction_flags(ctx, jnp.prod, np.prod, "float32", axis, keepdims, where, lo=0.5, hi=1.5, **kw)


def _prod_hessian(x):
    x = x.ravel()
    h = np.prod(x) / np.outer(x, x)
    np.fill_diagonal(h, 0.0)
    return h


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def prod_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_hessian

    swept_hessian(ctx, jnp.prod, _prod_hessian, dtype, mode, shape=(8,), lo=0.5, hi=1.5, scale=4.0)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def prod_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(
        ctx,
        lambda x: jnp.prod(x, axis=-1),
        lambda x: np.prod(x, axis=-1),
        "float32",
        mode,
        in_axis=axis,
        lo=0.5,
        hi=1.5,
        scale=4.0,
    )
