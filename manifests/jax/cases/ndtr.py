"""jax.scipy.special.ndtr: the standard normal CDF against 0.5 * (1 + erf(x / sqrt 2))."""

import math

import numpy as np
from _jaxhelp import FLOATS_32_64, MODES, grad_of_sum, unary

from portbench_runner.api import case, sweep

NDTR = np.vectorize(lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0)))


@case("float32-eager", dtype="float32")
@case("float64-jit", dtype="float64", jit=True)
@case("bfloat16-eager", dtype="bfloat16")
@case("float32-tails", dtype="float32", lo=-12, hi=12)
def ndtr_values(ctx, dtype, jit=False, lo=-5.0, hi=5.0):
    import jax.scipy.special as jss

    unary(
        ctx,
        jss.ndtr,
        NDTR,
        dtype=dtype,
        jit=jit,
        lo=lo,
        hi=hi,
        atol=1e-6 if dtype == "float32" else None,
    )


@case("grad-is-density")
def ndtr_grad(ctx):
    import jax.scipy.special as jss

    grad_of_sum(ctx, jss.ndtr, lambda x: np.exp(-(x**2) / 2) / math.sqrt(2 * math.pi))


# jss.ndtr takes float32 and float64 only (it refuses half widths by design: the
# bfloat16-eager case above shows it), eager and under jax.jit, with its gradient;
# new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def ndtr_dtypes(ctx, dtype, mode):
    import jax.scipy.special as jss
    from _jaxhelp import swept_unary

    swept_unary(
        ctx,
        jss.ndtr,
        NDTR,
        dtype,
        mode,
        lo=-5,
        hi=5,
        scale=1.0,
    )


@sweep("grad-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def ndtr_grad_dtypes(ctx, dtype, mode):
    import jax.scipy.special as jss
    from _jaxhelp import swept_grad

    swept_grad(
        ctx,
        jss.ndtr,
        lambda x: np.exp(-(x**2) / 2) / np.sqrt(2 * np.pi),
        dtype,
        mode,
        lo=-5,
        hi=5,
        scale=1.0,
    )


# The study's other kinds of paths: the documented error for a bad argument (an integer
# input: exact type and message), the second derivative (grad of grad: -x phi(x)) in
# float32 and float64, and jax.vmap along a leading and an inner axis, eager and under
# jax.jit. New names; the cases above keep their ids.
@case("error-integer-input")
def ndtr_error(ctx):
    import jax.scipy.special as jss
    from _jaxhelp import check_raises

    x = ctx.put(np.arange(3, dtype="int32"))
    check_raises(ctx, lambda: jss.ndtr(x), TypeError, r"x\.dtype=int32 is not supported")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def ndtr_grad2(ctx, dtype, mode):
    import jax.scipy.special as jss
    from _jaxhelp import swept_grad2

    def d2(x):
        return -x * np.exp(-(x**2) / 2) / np.sqrt(2 * np.pi)

    swept_grad2(ctx, jss.ndtr, d2, dtype, mode, lo=-5.0, hi=5.0)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def ndtr_vmap_axes(ctx, axis, mode):
    import jax.scipy.special as jss
    from _jaxhelp import swept_vmap

    swept_vmap(ctx, jss.ndtr, NDTR, "float32", mode, in_axis=axis, lo=-5.0, hi=5.0)
