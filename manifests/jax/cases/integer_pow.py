"""jax.lax.integer_pow: x ** n for fixed integer n (positive, zero, negative), gradient."""

from _jaxhelp import draw, placed

from portbench_runner.api import case


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
