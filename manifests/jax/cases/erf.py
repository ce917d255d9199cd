"""jax.lax.erf: the error function against math.erf, its gradient and jit."""

import math

import numpy as np
from _jaxhelp import FLOATS, GRAD_FLOATS, MODES, grad_of_sum, unary

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
