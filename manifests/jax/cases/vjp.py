"""jax.vjp: vector-Jacobian products of elementwise, matrix and multi-output functions."""

import numpy as np
from _jaxhelp import COMPLEX, FLOATS, FLOATS_32_64, MODES

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


# The study's other kinds of paths: the documented error for a pullback called with more
# cotangents than outputs (exact type and message), the full grid of has_aux x output
# structure (one array, a tuple), second order (the vjp of a vjp: a Hessian-vector product)
# in float32 and float64, and jax.vmap of the pullback over a batch of cotangents (rows of
# the Jacobian), eager and under jax.jit. New names; the cases above keep their ids.
@case("error-too-many-cotangents")
def vjp_error(ctx):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones(5, dtype="float32"))
    _, pullback = jax.vjp(jnp.sin, x)
    check_raises(ctx, lambda: pullback(x, x), TypeError, r"must be called with a single argument")


@sweep("flags-{aux}-{outputs}-sweep", aux=["has-aux", "no-aux"], outputs=["array", "tuple"])
def vjp_flags(ctx, aux, outputs):
    import jax
    import jax.numpy as jnp

    x = ctx.rng.uniform(-2, 2, 6)

    def f(v):
        out = jnp.sin(v) if outputs == "array" else (jnp.sin(v), v**2)
        return (out, jnp.sum(v)) if aux == "has-aux" else out

    def run(v):
        result = jax.vjp(f, v, has_aux=aux == "has-aux")
        primal, pullback = result[0], result[1]
        cot = jnp.ones(6) if outputs == "array" else (jnp.ones(6), jnp.full(6, 2.0))
        return primal, pullback(cot)[0], result[2] if aux == "has-aux" else None

    primal, grad, extra = ctx.measure(run, ctx.put(x))
    expected = np.cos(x) if outputs == "array" else np.cos(x) + 4 * x
    ctx.check_close(grad, expected, dtype="float64")
    ctx.check_close(
        primal if outputs == "array" else primal[1],
        np.sin(x) if outputs == "array" else x**2,
        dtype="float64",
    )
    if aux == "has-aux":
        ctx.check_close(extra, x.sum(), dtype="float64", what="aux")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def vjp_second_order(ctx, dtype, mode):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_swept, draw, placed

    x, exact = placed(ctx, draw(ctx, (16,), dtype), dtype)
    u, u_exact = placed(ctx, draw(ctx, (16,), dtype), dtype)

    def hvp(v, w):
        # The gradient of f(v) = sum(sin(v) * v) as a vjp, then that gradient's vjp with w.
        def grad_f(a):
            return jax.vjp(lambda b: jnp.sum(jnp.sin(b) * b), a)[1](jnp.ones((), a.dtype))[0]

        return jax.vjp(grad_f, v)[1](w)[0]

    out = ctx.measure(ctx.in_mode(mode, hvp), x, u)
    check_swept(ctx, out, (2 * np.cos(exact) - exact * np.sin(exact)) * u_exact)


@sweep("vmap-{mode}-sweep", mode=MODES)
def vjp_vmap_pullback(ctx, mode):
    import jax
    import jax.numpy as jnp

    a = ctx.rng.uniform(-2, 2, (4, 3))
    x = ctx.rng.uniform(-2, 2, 3)
    ad = ctx.put(a)

    def jacobian_rows(v, cots):
        _, pullback = jax.vjp(lambda b: jnp.tanh(ad @ b), v)
        return jax.vmap(lambda c: pullback(c)[0])(cots)

    out = ctx.measure(ctx.in_mode(mode, jacobian_rows), ctx.put(x), ctx.put(np.eye(4)))
    jac = (1 - np.tanh(a @ x) ** 2)[:, None] * a
    ctx.check_close(out, jac, dtype="float64")
