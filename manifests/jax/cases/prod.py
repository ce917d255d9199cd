"""jax.numpy.prod: products over axes, integer overflow wraps, empty is one, gradient."""

import numpy as np
from _jaxhelp import BOOL, COMPLEX, FEW_INTS, FLOATS, MODES, reduction

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
