"""jax.numpy.i0: the modified Bessel function of order 0 against numpy.i0."""

import numpy as np
from _jaxhelp import FLOATS, MODES, unary

from portbench_runner.api import case, sweep

# The integer width i0's sweep promotes to a float (the default one).
PROMOTED_INTS = ("int32",)


@case("float32-eager", dtype="float32")
@case("float64-jit", dtype="float64", jit=True)
@case("bfloat16-eager", dtype="bfloat16")
@case("float32-large-jit", dtype="float32", shape=(200_000,), jit=True)
def i0_values(ctx, dtype, shape=(1024,), jit=False):
    import jax.numpy as jnp

    rtol = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 2e-2}[dtype]
    unary(ctx, jnp.i0, np.i0, dtype=dtype, shape=shape, jit=jit, lo=-8, hi=8, rtol=rtol)


@case("even-function")
def i0_even(ctx):
    import jax.numpy as jnp

    x = np.linspace(0, 5, 64)
    out = ctx.to_numpy(ctx.measure(jnp.i0, ctx.put(np.concatenate([x, -x]))))
    ctx.check_close(out[:64], out[64:], dtype="float64")
    ctx.check(out[0] == 1.0, f"i0(0) is {out[0]}, not 1")


# Every dtype jnp.i0 takes on the CPU (integers promote to a float), eager and under
# jax.jit; new names, so the cases above
# keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOATS + PROMOTED_INTS,
    mode=MODES,
)
def i0_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_unary

    swept_unary(
        ctx,
        jnp.i0,
        np.i0,
        dtype,
        mode,
        lo=-8,
        hi=8,
        scale=2.0,
    )
