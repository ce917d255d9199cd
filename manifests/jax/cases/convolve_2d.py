"""jax.scipy.signal.convolve2d: modes full/same/valid against a direct NumPy convolution."""

import numpy as np
from _jaxhelp import BOOL, COMPLEX, FLOATS, FLOATS_32_64, GRAD_FLOATS, MODES

from portbench_runner.api import case, sweep

# Narrow, default and unsigned integers: convolve2d promotes them to a float of their width.
PROMOTED_INTS = ("int8", "int32", "uint8")


def reference(a, k, mode):
    """Direct 2-d convolution (flipped kernel) in float64, cropped like scipy.signal."""
    ka, kb = k.shape
    full = np.zeros((a.shape[0] + ka - 1, a.shape[1] + kb - 1), dtype=np.result_type(a, k))
    for i in range(ka):
        for j in range(kb):
            full[i : i + a.shape[0], j : j + a.shape[1]] += k[i, j] * a
    if mode == "full":
        return full
    if mode == "valid":
        return full[ka - 1 : a.shape[0], kb - 1 : a.shape[1]]
    top, left = (ka - 1) // 2, (kb - 1) // 2
    return full[top : top + a.shape[0], left : left + a.shape[1]]


@case("full", mode="full")
@case("same", mode="same")
@case("valid", mode="valid")
@case("float64-same", mode="same", dtype="float64")
@case("large-valid", mode="valid", shape=(512, 512))
def convolve2d_values(ctx, mode, dtype="float32", shape=(32, 40)):
    import jax.scipy.signal as jsig

    a = ctx.rng.standard_normal(shape).astype(dtype)
    k = ctx.rng.standard_normal((5, 3)).astype(dtype)
    out = ctx.measure(jsig.convolve2d, ctx.put(a), ctx.put(k), mode=mode)
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(
        out, reference(a.astype("float64"), k.astype("float64"), mode), rtol=tol, atol=tol * 10
    )


# Every dtype convolve2d takes on the CPU (bool and integers promote to a float of their
# width), eager and under jax.jit, cropped to "same"; new names, so the cases above keep
# their ids.
@sweep("{dtype}-{mode}-sweep", dtype=BOOL + PROMOTED_INTS + FLOATS + COMPLEX, mode=MODES)
def convolve2d_dtypes(ctx, dtype, mode):
    import jax.scipy.signal as jsig
    from _jaxhelp import check_swept, draw, placed

    lo = 0 if dtype.startswith("u") else -4
    a, a_exact = placed(ctx, draw(ctx, (9, 11), dtype, lo, 4), dtype)
    k, k_exact = placed(ctx, draw(ctx, (3, 2), dtype, lo, 4), dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda x, y: jsig.convolve2d(x, y, mode="same")), a, k)
    wide = "complex128" if a_exact.dtype.kind == "c" else "float64"
    check_swept(ctx, out, reference(a_exact.astype(wide), k_exact.astype(wide), "same"), scale=8.0)


# d/da of sum(convolve2d(a, k, "full")) is sum(k) for every element of a.
@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def convolve2d_grad_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    import jax.scipy.signal as jsig
    from _jaxhelp import swept_grad

    def fn(x):
        k = jnp.array([[1.0, 2.0], [-0.5, 0.25]], dtype=x.dtype)
        return jsig.convolve2d(x.reshape(8, 16), k, mode="full")

    swept_grad(ctx, fn, lambda x: np.full(x.shape, 2.75), dtype, mode)


# The study's other kinds of paths: the documented errors for bad arguments (a 1-d input, an
# unknown mode, a boundary other than fill: exact type and message), the full grid of
# convolve2d's flags (mode x precision; boundary and fillvalue take one value each) under
# jax.jit, the Hessian of sum(convolve2d(x, k)**2) (2 A^T A) in float32 and float64, and
# jax.vmap along a leading and an inner axis, eager and under jax.jit. New names; the cases
# above keep their ids.
@sweep("error-{form}", form=["one-d-input", "unknown-mode", "wrap-boundary"])
def convolve2d_errors(ctx, form):
    from _jaxhelp import check_raises
    from jax.scipy.signal import convolve2d

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    if form == "one-d-input":
        v = ctx.put(np.ones(5, dtype="float32"))
        check_raises(
            ctx, lambda: convolve2d(v, v), ValueError, r"only supports 2-dimensional inputs"
        )
    elif form == "unknown-mode":
        check_raises(
            ctx, lambda: convolve2d(x, x, mode="circular"), ValueError, r"mode must be one of"
        )
    else:
        check_raises(
            ctx,
            lambda: convolve2d(x, x, boundary="wrap"),
            NotImplementedError,
            r"only supports boundary='fill'",
        )


@sweep(
    "flags-{conv}-precision-{precision}-sweep",
    conv=["full", "same", "valid"],
    precision=["default", "highest"],
)
def convolve2d_flags(ctx, conv, precision):
    from jax.scipy.signal import convolve2d

    a = ctx.rng.uniform(-2, 2, (7, 8))
    k = ctx.rng.uniform(-2, 2, (3, 2))
    kw = {} if precision == "default" else {"precision": "highest"}
    out = ctx.measure(
        ctx.compiled(lambda x, y: convolve2d(x, y, mode=conv, **kw)), ctx.put(a), ctx.put(k)
    )
    ctx.check_close(out, reference(a, k, conv), rtol=1e-12, atol=1e-12)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def convolve2d_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import linear_matrix, swept_hessian
    from jax.scipy.signal import convolve2d

    k = np.array([[0.5, -1.0], [2.0, 1.0]])
    kd = ctx.put(k.astype(dtype))
    a = linear_matrix(lambda v: reference(v, k, "same"), (3, 4))
    swept_hessian(
        ctx,
        lambda v: jnp.sum(convolve2d(v, kd, mode="same") ** 2),
        lambda x: 2 * a.T @ a,
        dtype,
        mode,
        shape=(3, 4),
        scale=8.0,
    )


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def convolve2d_vmap_axes(ctx, axis, mode):
    from _jaxhelp import swept_vmap
    from jax.scipy.signal import convolve2d

    k = np.array([[1.0, -2.0], [0.5, 1.0]], dtype="float32")
    kd = ctx.put(k)
    swept_vmap(
        ctx,
        lambda x: convolve2d(x, kd, mode="valid"),
        lambda x: reference(x, k, "valid"),
        "float32",
        mode,
        in_axis=axis,
        scale=4.0,
    )
