"""jax.numpy.power: float and integer powers, broadcasting, negative bases, gradient."""

import numpy as np
from _jaxhelp import ALL_NUMERIC, FLOATS_32_64, MODES, binary

from portbench_runner.api import case, sweep


@case("float32-eager", dtype="float32")
@case("float64-jit", dtype="float64", jit=True)
@case("bfloat16-eager", dtype="bfloat16")
def power_values(ctx, dtype, jit=False):
    import jax.numpy as jnp

    binary(ctx, jnp.power, np.power, dtype=dtype, jit=jit, lo=0.1, hi=3.0)


@case("int32-exact")
def power_int(ctx):
    import jax.numpy as jnp

    base = ctx.put(np.arange(-5, 6, dtype="int32"))
    exponent = ctx.put(np.full(11, 3, dtype="int32"))
    out = ctx.measure(jnp.power, base, exponent)
    ctx.check_equal(out, np.arange(-5, 6, dtype="int32") ** 3)


@case("grad-wrt-exponent")
def power_grad(ctx):
    import jax
    import jax.numpy as jnp

    x = np.linspace(0.5, 2.0, 32).astype("float32")
    base = ctx.put(x)
    g = jax.grad(lambda e: jnp.sum(jnp.power(base, e)))
    out = ctx.measure(g, ctx.put(np.float32(2.0)))
    ctx.check_close(
        out, float(np.sum(x.astype("float64") ** 2 * np.log(x.astype("float64")))), rtol=1e-4
    )


# Every dtype jnp.power takes on the CPU (integers with exponents 0..3, so nothing wraps or
# goes negative), eager and under jax.jit, against a broadcast row of exponents; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=ALL_NUMERIC,
    mode=MODES,
)
def power_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import INTS, check_swept, draw, placed

    ints = dtype in INTS
    base, base_h = placed(
        ctx, draw(ctx, (9, 12), dtype, -3 if ints else 0.5, 4 if ints else 2), dtype
    )
    exp, exp_h = placed(ctx, draw(ctx, (12,), dtype, 0 if ints else -2, 4 if ints else 2), dtype)
    out = ctx.measure(ctx.in_mode(mode, jnp.power), base, exp)
    # Same-dtype operands keep their dtype; checked first, since check_swept takes its
    # tolerance from the output's dtype (a mutation run found dtype changes passing).
    got = str(out.dtype)
    ctx.check(got == dtype, f"{dtype} operands gave a {got} output", "type")
    check_swept(ctx, out, np.power(base_h, exp_h), scale=4.0)


# The study's other kinds of paths: the documented error for a bad argument (an integer base
# to a negative integer power: exact type and message), the second derivative in the base
# (y (y - 1) x**(y - 2)) in float32 and float64, and jax.vmap over the base, the exponent or
# both, eager and under jax.jit. New names; the cases above keep their ids.
@case("error-integer-negative-power")
def power_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    base = ctx.put(np.arange(1, 4, dtype="int32"))
    check_raises(
        ctx, lambda: jnp.power(base, -1), TypeError, r"Integers cannot be raised to negative powers"
    )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def power_grad2(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad2

    swept_grad2(
        ctx, lambda x: jnp.power(x, 2.5), lambda x: 3.75 * x**0.5, dtype, mode, lo=0.2, hi=3.0
    )


@sweep("vmap-{axes}-{mode}-sweep", axes=["base", "exponent", "both"], mode=MODES)
def power_vmap(ctx, axes, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap_args

    in_axes = {"base": (0, None), "exponent": (None, 1), "both": (1, 1)}[axes]
    swept_vmap_args(
        ctx, jnp.power, np.power, ("float32", "float32"), mode, in_axes, lo=0.2, hi=2.5, scale=5.0
    )
