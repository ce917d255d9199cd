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
