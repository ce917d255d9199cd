"""jax.lax.integer_pow: x ** n for fixed integer n (positive, zero, negative), gradient."""

from _jaxhelp import ALL_NUMERIC, GRAD_FLOATS, MODES, draw, placed

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
