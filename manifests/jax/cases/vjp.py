"""jax.vjp: vector-Jacobian products of elementwise, matrix and multi-output functions."""

import numpy as np
from _jaxhelp import COMPLEX, FLOATS, MODES

from portbench_runner.api import case, sweep


@case("elementwise-sin")
@case("elementwise-sin-float64", dtype="float64")
def vjp_sin(ctx, dtype="float32"):
    import jax
    import jax.numpy as jnp

    x = ctx.rng.standard_normal(128).astype(dtype)
    v = ctx.rng.standard_normal(128).astype(dtype)

    def run(a, cot):
        out, pullback = jax.vjp(jnp.sin, a)
        return out, pullback(cot)[0]

    out, grad = ctx.measure(run, ctx.put(x), ctx.put(v))
    x64, v64 = x.astype("float64"), v.astype("float64")
    ctx.check_close(out, np.sin(x64), dtype=dtype, rtol=2e-5 if dtype == "float32" else None)
    ctx.check_close(grad, v64 * np.cos(x64), dtype=dtype, rtol=2e-5 if dtype == "float32" else None)


@case("matmul-both-arguments")
def vjp_matmul(ctx):
    import jax
    import jax.numpy as jnp

    a = ctx.rng.standard_normal((8, 5))
    b = ctx.rng.standard_normal((5, 3))
    cot = ctx.rng.standard_normal((8, 3))

    def run(x, y, c):
        _, pullback = jax.vjp(jnp.matmul, x, y)
        return pullback(c)

    ga, gb = ctx.measure(run, ctx.put(a), ctx.put(b), ctx.put(cot))
    ctx.check_close(ga, cot @ b.T, dtype="float64")
    ctx.check_close(gb, a.T @ cot, dtype="float64")


@case("jit-of-vjp")
def vjp_jit(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda x, c: jax.vjp(lambda y: jnp.sum(y**2), x)[1](c)[0])
    x = np.arange(4, dtype="float32")
    ctx.check_close(ctx.measure(f, ctx.put(x), ctx.put(np.float32(1.0))), 2 * x, dtype="float32")


# jax.vjp of sin in every float width and complex (for a holomorphic function the pullback
# is ct * f'(x), unconjugated), eager and under jax.jit; new names, so the cases above keep
# their ids.
@sweep("{dtype}-{mode}-sweep", dtype=FLOATS + COMPLEX, mode=MODES)
def vjp_dtypes(ctx, dtype, mode):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_swept, draw, out_dtype, placed

    x, x_exact = placed(ctx, draw(ctx, (64,), dtype, -2, 2), dtype)
    ct, ct_exact = placed(ctx, draw(ctx, (64,), dtype, -2, 2), dtype)

    def run(a, cot):
        out, pullback = jax.vjp(jnp.sin, a)
        return out, pullback(cot)[0]

    out, grad = ctx.measure(ctx.in_mode(mode, run), x, ct)
    ctx.check(out_dtype(ctx, grad) == dtype, f"the cotangent is {out_dtype(ctx, grad)}", "type")
    check_swept(ctx, out, np.sin(x_exact))
    check_swept(ctx, grad, ct_exact * np.cos(x_exact), scale=2.0)
