"""jax.scipy.special.gammaln: log|Gamma(x)| against math.lgamma, gradient (digamma), jit."""

import math

import numpy as np
from _jaxhelp import FLOATS, MODES, unary

from portbench_runner.api import case, sweep

# The integer widths gammaln's sweep promotes to a float (the default and the wide one).
PROMOTED_INTS = ("int32", "int64")

LGAMMA = np.vectorize(math.lgamma)


@case("float32-eager", dtype="float32")
@case("float64-jit", dtype="float64", jit=True)
@case("bfloat16-eager", dtype="bfloat16")
def gammaln_values(ctx, dtype, jit=False):
    import jax.scipy.special as jss

    rtol = {"float32": 1e-4, "float64": 1e-10, "bfloat16": 3e-2}[dtype]
    unary(ctx, jss.gammaln, LGAMMA, dtype=dtype, jit=jit, lo=0.1, hi=20, rtol=rtol, atol=rtol)


@case("integers-are-log-factorials")
def gammaln_factorials(ctx):
    import jax.scipy.special as jss

    n = np.arange(1, 15, dtype="float64")
    out = ctx.measure(jss.gammaln, ctx.put(n))
    ctx.check_close(
        out, [math.log(math.factorial(int(k) - 1)) for k in n], dtype="float64", atol=1e-10
    )


@case("grad-matches-finite-difference")
def gammaln_grad(ctx):
    import jax
    import jax.scipy.special as jss

    x = np.linspace(1.5, 8.0, 16)
    out = ctx.measure(jax.vmap(jax.grad(jss.gammaln)), ctx.put(x))
    h = 1e-6
    fd = (LGAMMA(x + h) - LGAMMA(x - h)) / (2 * h)
    ctx.check_close(out, fd, rtol=1e-6, atol=1e-6)


# Every dtype jss.gammaln takes on the CPU (integers promote to a float), eager and under
# jax.jit; new names, so the cases above
# keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOATS + PROMOTED_INTS,
    mode=MODES,
)
def gammaln_dtypes(ctx, dtype, mode):
    import jax.scipy.special as jss
    from _jaxhelp import INTS, swept_unary

    ints = dtype in INTS
    swept_unary(
        ctx,
        jss.gammaln,
        LGAMMA,
        dtype,
        mode,
        lo=1 if ints else 0.1,
        hi=20,
        scale={"float64": 100.0}.get(dtype, 5.0),
    )
