"""jax.lax.erf: the error function against math.erf, its gradient and jit."""

import math

import numpy as np
from _jaxhelp import FLOATS, FLOATS_32_64, GRAD_FLOATS, MODES, grad_of_sum, unary

from portbench_runner.api import case, sweep

ERF = np.vectorize(math.erf)


@case("float32-eager", dtype="float32")
@case("float64-jit", dtype="float64", jit=True)
@case("bfloat16-eager", dtype="bfloat16")
@case("float32-large-jit", dtype="float32", shape=(1_000_000,), jit=True)
def erf_values(ctx, dtype, shape=(1024,), jit=False):
    import jax

    ref = ERF
    unary(
        ctx,
        jax.lax.erf,
        ref,
        dtype=dtype,
        shape=shape,
        jit=jit,
        lo=-3,
        hi=3,
        atol=1e-6 if dtype == "float32" else None,
    )


@case("grad-is-gaussian")
def erf_grad(ctx):
    import jax

    grad_of_sum(ctx, jax.lax.erf, lambda x: 2.0 / math.sqrt(math.pi) * np.exp(-(x**2)))


# Every dtype jax.lax.erf takes on the CPU (floats only: it refuses integers), eager and
# under jax.jit, and its gradient in each float width; new names, so the cases above
# keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOATS,
    mode=MODES,
)
def erf_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import swept_unary

    swept_unary(
        ctx,
        jax.lax.erf,
        ERF,
        dtype,
        mode,
        lo=-3,
        hi=3,
        scale=1.0,
    )


@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def erf_grad_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import swept_grad

    swept_grad(
        ctx,
        jax.lax.erf,
        lambda x: 2 / np.sqrt(np.pi) * np.exp(-(x**2)),
        dtype,
        mode,
        lo=-3,
        hi=3,
        scale=1.0,
    )


# The study's other kinds of paths: the documented error for a bad argument (lax.erf takes
# floats only: exact type and message), the second derivative (grad of grad,
# -4x exp(-x**2) / sqrt(pi)) in float32 and float64, and jax.vmap along a leading and an
# inner axis, eager and under jax.jit. New names; the cases above keep their ids.
@case("error-integer-input")
def erf_error(ctx):
    from _jaxhelp import check_raises
    from jax import lax

    x = ctx.put(np.arange(4, dtype="int32"))
    check_raises(ctx, lambda: lax.erf(x), TypeError, r"erf does not accept dtype int32")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def erf_grad2(ctx, dtype, mode):
    from _jaxhelp import swept_grad2
    from jax import lax

    def d2(x):
        return -4.0 * x * np.exp(-(x**2)) / np.sqrt(np.pi)

    swept_grad2(ctx, lax.erf, d2, dtype, mode)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def erf_vmap_axes(ctx, axis, mode):
    from _jaxhelp import swept_vmap
    from jax import lax

    swept_vmap(ctx, lax.erf, np.vectorize(math.erf), "float32", mode, in_axis=axis)
