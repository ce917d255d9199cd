"""jax.scipy.special.gammaln: log|Gamma(x)| against math.lgamma, gradient (digamma), jit."""

import math

import numpy as np
from _jaxhelp import FLOATS, FLOATS_32_64, MODES, unary

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


def _trigamma(x):
    """psi'(x) for x > 0 in float64: the recurrence psi'(x) = psi'(x + 1) + 1/x**2 up to
    x >= 20, then the asymptotic series 1/x + 1/2x^2 + sum B_2k / x^(2k+1)."""
    x = np.array(x, dtype="float64")
    acc = np.zeros_like(x)
    while (x < 20).any():
        small = x < 20
        acc[small] += 1.0 / x[small] ** 2
        x[small] += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    return (
        acc + inv + inv2 / 2 + inv * inv2 * (1 / 6 - inv2 * (1 / 30 - inv2 * (1 / 42 - inv2 / 30)))
    )


# The study's other kinds of paths: the documented error for a bad argument (complex input:
# exact type and message), the second derivative (grad of grad: the trigamma function) in
# float32 and float64, and jax.vmap along a leading and an inner axis, eager and under
# jax.jit. New names; the cases above keep their ids.
@case("error-complex-input")
def gammaln_error(ctx):
    import jax.scipy.special as jss
    from _jaxhelp import check_raises

    x = ctx.put(np.ones(3, dtype="complex64"))
    check_raises(ctx, lambda: jss.gammaln(x), TypeError, r"lgamma does not accept dtype complex64")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def gammaln_grad2(ctx, dtype, mode):
    import jax.scipy.special as jss
    from _jaxhelp import swept_grad2

    scale = {"float64": 100.0}.get(dtype, 5.0)
    swept_grad2(ctx, jss.gammaln, _trigamma, dtype, mode, lo=0.3, hi=12.0, scale=scale)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def gammaln_vmap_axes(ctx, axis, mode):
    import jax.scipy.special as jss
    from _jaxhelp import swept_vmap

    swept_vmap(ctx, jss.gammaln, LGAMMA, "float32", mode, in_axis=axis, lo=0.1, hi=20.0, scale=5.0)
