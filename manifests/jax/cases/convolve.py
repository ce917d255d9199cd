"""jax.numpy.convolve: modes full/same/valid, dtypes, long signals, gradient."""

import numpy as np
from _jaxhelp import BOOL, COMPLEX, FLOATS, FLOATS_32_64, GRAD_FLOATS, MODES, SWEPT_INTS

from portbench_runner.api import case, sweep


@case("full", mode="full")
@case("same", mode="same")
@case("valid", mode="valid")
@case("float64-full", mode="full", dtype="float64")
@case("long-signal", mode="same", n=100_000)
def convolve_values(ctx, mode, dtype="float32", n=256):
    import jax.numpy as jnp

    a = ctx.rng.standard_normal(n).astype(dtype)
    v = ctx.rng.standard_normal(17).astype(dtype)
    out = ctx.measure(jnp.convolve, ctx.put(a), ctx.put(v), mode=mode)
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(
        out,
        np.convolve(a.astype("float64"), v.astype("float64"), mode=mode),
        rtol=tol,
        atol=tol * 10,
    )


@case("int32-exact")
def convolve_int(ctx):
    import jax.numpy as jnp

    a = np.array([1, 2, 3], dtype="int32")
    v = np.array([0, 1, 1], dtype="int32")
    ctx.check_equal(ctx.measure(jnp.convolve, ctx.put(a), ctx.put(v)), np.convolve(a, v))


@case("jit")
def convolve_jit(ctx):
    import jax
    import jax.numpy as jnp

    a = ctx.rng.standard_normal(64).astype("float32")
    v = ctx.rng.standard_normal(5).astype("float32")
    f = jax.jit(jnp.convolve, static_argnames="mode")
    out = ctx.measure(f, ctx.put(a), ctx.put(v), mode="valid")
    ctx.check_close(
        out,
        np.convolve(a.astype("float64"), v.astype("float64"), mode="valid"),
        rtol=1e-4,
        atol=1e-4,
    )


# Every dtype jnp.convolve takes on the CPU (integers and bool promote to a float of their
# width, as JAX documents), eager and under jax.jit, cropped to "same" (the cases above
# cover the other modes); new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=BOOL + SWEPT_INTS + FLOATS + COMPLEX, mode=MODES)
def convolve_dtypes(ctx, dtype, mode, conv="same"):
    import jax.numpy as jnp
    from _jaxhelp import check_swept, draw, placed

    a, a_exact = placed(ctx, draw(ctx, (40,), dtype, 0 if dtype.startswith("u") else -4, 4), dtype)
    v, v_exact = placed(ctx, draw(ctx, (5,), dtype, 0 if dtype.startswith("u") else -4, 4), dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda x, y: jnp.convolve(x, y, mode=conv)), a, v)
    wide = "complex128" if a_exact.dtype.kind == "c" else "float64"
    expected = np.convolve(a_exact.astype(wide), v_exact.astype(wide), mode=conv)
    check_swept(ctx, out, expected, scale=8.0)


# d/da of sum(convolve(a, k, "full")) is sum(k) for every element of a.
@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def convolve_grad_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad

    def fn(x):
        return jnp.convolve(x, jnp.array([1.0, 2.0, -0.5], dtype=x.dtype))

    swept_grad(ctx, fn, lambda x: np.full(x.shape, 2.5), dtype, mode)


# The study's other kinds of paths: the documented errors for bad arguments (a 2-d input, an
# empty input, an unknown mode: exact type and message), the full grid of convolve's flags
# (mode x precision) under jax.jit, the Hessian of sum(convolve(x, k)**2) (2 A^T A, A the
# convolution's matrix) in float32 and float64, and jax.vmap along a leading and an inner
# axis, eager and under jax.jit. New names; the cases above keep their ids.
@sweep("error-{form}", form=["two-d-input", "empty-input", "unknown-mode"])
def convolve_errors(ctx, form):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    v = ctx.put(np.ones(5, dtype="float32"))
    call, pattern = {
        "two-d-input": (
            lambda: jnp.convolve(ctx.put(np.ones((3, 4), dtype="float32")), v),
            r"only support 1-dimensional inputs",
        ),
        "empty-input": (
            lambda: jnp.convolve(ctx.put(np.ones(0, dtype="float32")), v),
            r"inputs cannot be empty",
        ),
        "unknown-mode": (
            lambda: jnp.convolve(v, v, mode="circular"),
            r"mode must be one of \['full', 'same', 'valid'\]",
        ),
    }[form]
    check_raises(ctx, call, ValueError, pattern)


@sweep(
    "flags-{conv}-precision-{precision}-sweep",
    conv=["full", "same", "valid"],
    precision=["default", "highest"],
)
def convolve_flags(ctx, conv, precision):
    import jax.numpy as jnp

    a = ctx.rng.uniform(-2, 2, 17)
    k = ctx.rng.uniform(-2, 2, 5)
    kw = {} if precision == "default" else {"precision": "highest"}
    out = ctx.measure(
        ctx.compiled(lambda x, y: jnp.convolve(x, y, mode=conv, **kw)), ctx.put(a), ctx.put(k)
    )
    ctx.check_close(out, np.convolve(a, k, mode=conv), rtol=1e-12, atol=1e-12)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def convolve_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import linear_matrix, swept_hessian

    k = np.array([0.5, -1.0, 2.0])
    kd = ctx.put(k.astype(dtype))
    a = linear_matrix(lambda v: np.convolve(v, k, mode="same"), (8,))
    swept_hessian(
        ctx,
        lambda v: jnp.sum(jnp.convolve(v, kd, mode="same") ** 2),
        lambda x: 2 * a.T @ a,
        dtype,
        mode,
        shape=(8,),
        scale=8.0,
    )


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 1], mode=MODES)
def convolve_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    k = np.array([1.0, -2.0, 0.5], dtype="float32")
    kd = ctx.put(k)
    swept_vmap(
        ctx,
        lambda x: jnp.convolve(x, kd),
        lambda x: np.convolve(x, k),
        "float32",
        mode,
        in_axis=axis,
        shape=(5, 9),
        scale=4.0,
    )
