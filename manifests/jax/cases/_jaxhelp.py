"""Shared bodies of JAX cases: inputs, references on the host, tolerances.

Case files keep their decorators (the host reads case names from them); the repeated
work of building inputs and checking results lives here.
"""

import numpy as np

# Looser than the elementwise defaults: transcendental functions differ by a few ulps
# between XLA and NumPy.
TRANSCENDENTAL_RTOL = {"float32": 2e-5, "float64": 1e-12, "bfloat16": 2e-2, "float16": 2e-3}


def host_dtype(dtype):
    """NumPy has no bfloat16: inputs are drawn in float32 and rounded on the device."""
    return "float32" if dtype == "bfloat16" else dtype


def draw(ctx, shape, dtype, lo=-3.0, hi=3.0):
    """Random inputs of ``dtype`` in [lo, hi) (integers: [lo, hi)), seeded per case."""
    if dtype in ("int8", "int16", "int32", "int64", "uint8"):
        return ctx.rng.integers(int(lo), int(hi), size=shape).astype(dtype)
    if dtype == "bool":
        return ctx.rng.random(shape) > 0.5
    return ctx.rng.uniform(lo, hi, size=shape).astype(host_dtype(dtype))


def placed(ctx, x, dtype):
    """(device array, the exact input values as float64 on the host)."""
    arr = ctx.put(x, dtype=dtype)
    host = np.asarray(ctx.to_numpy(arr))
    return arr, host.astype("float64") if host.dtype.kind == "f" else host


def unary(
    ctx, fn, ref, dtype="float32", shape=(1024,), jit=False, lo=-3.0, hi=3.0, rtol=None, atol=None
):
    """fn(x) against ref(x) computed in float64 on the exact (rounded) inputs."""
    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    f = ctx.compiled(fn) if jit else fn
    out = ctx.measure(f, arr)
    expected = ref(exact)
    r = TRANSCENDENTAL_RTOL.get(dtype, 0.0) if rtol is None else rtol
    a = r if atol is None else atol
    ctx.check_close(out, expected, rtol=r, atol=a)
    return out


def binary(
    ctx,
    fn,
    ref,
    dtype="float32",
    shape=(256, 256),
    jit=False,
    lo=-3.0,
    hi=3.0,
    rtol=None,
    shape_b=None,
):
    a_arr, a_exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    b_arr, b_exact = placed(ctx, draw(ctx, shape_b or shape, dtype, lo, hi), dtype)
    f = ctx.compiled(fn) if jit else fn
    out = ctx.measure(f, a_arr, b_arr)
    expected = ref(a_exact, b_exact)
    if dtype in ("bool", "int8", "int16", "int32", "int64", "uint8"):
        ctx.check_equal(out, expected.astype(np.asarray(ctx.to_numpy(out)).dtype))
    else:
        r = TRANSCENDENTAL_RTOL.get(dtype, 1e-5) if rtol is None else rtol
        ctx.check_close(out, expected, rtol=r, atol=r)
    return out


def grad_of_sum(ctx, fn, dref, lo=-3.0, hi=3.0, shape=(256,), dtype="float32", rtol=1e-4):
    """jax.grad of sum(fn(x)) against the analytic derivative dref(x)."""
    import jax
    import jax.numpy as jnp

    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    g = jax.grad(lambda v: jnp.sum(fn(v)))
    out = ctx.measure(g, arr)
    ctx.check_close(out, dref(exact), rtol=rtol, atol=rtol)


def vmapped(ctx, fn, ref, shape=(16, 64), lo=-3.0, hi=3.0, rtol=2e-5):
    """jax.vmap of fn over the leading axis against ref applied row by row."""
    import jax

    arr, exact = placed(ctx, draw(ctx, shape, "float32", lo, hi), "float32")
    out = ctx.measure(jax.vmap(fn), arr)
    ctx.check_close(out, np.stack([ref(row) for row in exact]), rtol=rtol, atol=rtol)


def reduction(
    ctx,
    fn,
    ref,
    dtype="float32",
    shape=(64, 128),
    axis=None,
    jit=False,
    lo=-3.0,
    hi=3.0,
    rtol=None,
    **kw,
):
    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    f = (
        ctx.compiled(lambda x: fn(x, axis=axis, **kw))
        if jit
        else (lambda x: fn(x, axis=axis, **kw))
    )
    out = ctx.measure(f, arr)
    expected = ref(exact, axis=axis, **kw)
    if dtype in ("bool", "int32", "int64"):
        ctx.check_equal(out, np.asarray(expected).astype(np.asarray(ctx.to_numpy(out)).dtype))
    else:
        n = exact.size if axis is None else exact.shape[axis]
        default = {"float32": 1e-6 * max(n, 10), "float64": 1e-12 * max(n, 10), "bfloat16": 3e-2}[
            dtype
        ]
        r = default if rtol is None else rtol
        ctx.check_close(out, expected, rtol=r, atol=r * max(1.0, float(np.abs(exact).mean())))
    return out
