"""jax.numpy.i0: the modified Bessel function of order 0 against numpy.i0."""

import numpy as np
from _jaxhelp import FLOATS, FLOATS_32_64, MODES, unary

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


def _i1(x):
    """The modified Bessel function of order 1 by its power series (|x| <= 8 here)."""
    x = np.asarray(x, dtype="float64")
    total = np.zeros_like(x)
    term = x / 2
    for k in range(60):
        total += term
        term = term * (x / 2) ** 2 / ((k + 1) * (k + 2))
    return total


# The study's other kinds of paths: the documented error for a bad argument (complex input:
# exact type and message), the second derivative (grad of grad: i0(x) - i1(x)/x) in float32
# and float64, and jax.vmap along a leading and an inner axis, eager and under jax.jit. New
# names; the cases above keep their ids.
@case("error-complex-input")
def i0_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones(3, dtype="complex64"))
    check_raises(ctx, lambda: jnp.i0(x), ValueError, r"Unsupported input type to jax\.numpy\.i0")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def i0_grad2(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad2

    swept_grad2(
        ctx, jnp.i0, lambda x: np.i0(x) - _i1(x) / x, dtype, mode, lo=0.5, hi=4.0, scale=5.0
    )


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def i0_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(ctx, jnp.i0, np.i0, "float32", mode, in_axis=axis, lo=-8.0, hi=8.0)
