"""jax.lax.integer_pow: x ** n for fixed integer n (positive, zero, negative), gradient."""

import numpy as np
from _jaxhelp import ALL_NUMERIC, FLOATS_32_64, GRAD_FLOATS, MODES, draw, placed

from portbench_runner.api import case, sweep


@case("float32-cube", dtype="float32", n=3)
@case("float64-square-jit", dtype="float64", n=2, jit=True)
@case("float32-inverse", dtype="float32", n=-2, lo=0.5)
@case("int32-cube", dtype="int32", n=3)
@case("float32-zero-power", dtype="float32", n=0)
@case("bfloat16-square", dtype="bfloat16", n=2)
def integer_pow_values(ctx, dtype, n, jit=False, lo=-3.0):
    import jax

    arr, exact = placed(ctx, draw(ctx, (512,), dtype, lo, 3.0), dtype)
    f = lambda x: jax.lax.integer_pow(x, n)  # noqa: E731
    out = ctx.measure(ctx.compiled(f) if jit else f, arr)
    if dtype == "int32":
        ctx.check_equal(out, exact.astype("int64") ** n)
    else:
        ctx.check_close(out, exact**n, dtype=dtype, rtol={"bfloat16": 2e-2}.get(dtype))


@case("grad-is-n-x-to-n-minus-1")
def integer_pow_grad(ctx):
    import jax
    import jax.numpy as jnp

    arr, exact = placed(ctx, draw(ctx, (128,), "float32"), "float32")
    out = ctx.measure(jax.grad(lambda v: jnp.sum(jax.lax.integer_pow(v, 4))), arr)
    ctx.check_close(out, 4 * exact**3, rtol=1e-5, atol=1e-4)


# Every dtype lax.integer_pow takes on the CPU (x ** 3; integers in -4..4, so int8 holds
# the result), eager and under jax.jit, with its gradient in each float width; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=ALL_NUMERIC,
    mode=MODES,
)
def integer_pow_dtypes(ctx, dtype, mode):
    import jax
    import numpy as np
    from _jaxhelp import check_swept

    arr, exact = placed(ctx, draw(ctx, (257,), dtype, -4, 4), dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda v: jax.lax.integer_pow(v, 3)), arr)
    ctx.check(str(out.dtype) == dtype, f"dtype {out.dtype}, not {dtype}", "type")
    check_swept(ctx, out, np.power(exact, 3), scale=4.0)


@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def integer_pow_grad_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import swept_grad

    swept_grad(ctx, lambda v: jax.lax.integer_pow(v, 3), lambda x: 3 * x**2, dtype, mode, scale=4.0)


# The study's other kinds of paths: the documented errors for bad arguments (an integer to a
# negative power, a boolean base: exact type and message), the second derivative of x**4
# (12 x**2) in float32 and float64, and jax.vmap along a leading and an inner axis, eager
# and under jax.jit. New names; the cases above keep their ids.
@sweep("error-{form}", form=["integer-negative-power", "bool-base"])
def integer_pow_errors(ctx, form):
    from _jaxhelp import check_raises
    from jax import lax

    if form == "integer-negative-power":
        x = ctx.put(np.arange(1, 3, dtype="int32"))
        check_raises(
            ctx,
            lambda: lax.integer_pow(x, -2),
            TypeError,
            r"Integers cannot be raised to negative powers",
        )
    else:
        x = ctx.put(np.ones(2, dtype=bool))
        check_raises(
            ctx, lambda: lax.integer_pow(x, 2), TypeError, r"integer_pow does not accept dtype bool"
        )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def integer_pow_grad2(ctx, dtype, mode):
    from _jaxhelp import swept_grad2
    from jax import lax

    swept_grad2(ctx, lambda x: lax.integer_pow(x, 4), lambda x: 12 * x**2, dtype, mode)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def integer_pow_vmap_axes(ctx, axis, mode):
    from _jaxhelp import swept_vmap
    from jax import lax

    swept_vmap(
        ctx,
        lambda x: lax.integer_pow(x, 3),
        lambda x: x**3,
        "float32",
        mode,
        in_axis=axis,
        scale=2.0,
    )
