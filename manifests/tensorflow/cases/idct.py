"""tf.signal.idct: types 1-3, orthonormal and unnormalized, batched, float64, graph/XLA.

References are explicit cosine sums in float64 (SciPy's definitions, which TF follows):
idct of type 2 is the DCT-III, of type 3 the DCT-II, of type 1 the DCT-I scaled by 1/(2(N-1)).
"""

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, by_mode

from portbench_runner.api import case, sweep


def _dct2_ortho(n):
    k = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    mat = np.cos(np.pi * k * (2 * j + 1) / (2 * n)) * np.sqrt(2.0 / n)
    mat[0] /= np.sqrt(2.0)
    return mat


def _reference(x, kind, norm):
    n = x.shape[-1]
    if kind == 2 and norm == "ortho":
        return x @ _dct2_ortho(n)  # the inverse of an orthonormal matrix is its transpose
    if kind == 3 and norm == "ortho":
        return x @ _dct2_ortho(n).T
    if kind == 2:  # unnormalized DCT-III
        k = np.arange(n)[None, :]
        j = np.arange(1, n)[:, None]
        return x[..., :1] + 2.0 * x[..., 1:] @ np.cos(np.pi * j * (2 * k + 1) / (2 * n))
    if kind == 1:  # DCT-I, and idct type 1 is dct type 1
        k = np.arange(n)[None, :]
        j = np.arange(1, n - 1)[:, None]
        inner = 2.0 * x[..., 1:-1] @ np.cos(np.pi * j * k / (n - 1))
        return x[..., :1] + ((-1.0) ** np.arange(n)) * x[..., -1:] + inner
    raise ValueError(kind)


@case("type2-ortho-float32", kind=2, norm="ortho", dtype="float32")
@case("type2-unnormalized-float64", kind=2, norm=None, dtype="float64")
@case("type3-ortho-float32", kind=3, norm="ortho", dtype="float32")
@case("type1-float64", kind=1, norm=None, dtype="float64")
@case("type2-ortho-graph", kind=2, norm="ortho", dtype="float32", mode="graph")
@case("type2-ortho-xla", kind=2, norm="ortho", dtype="float32", mode="xla")
@case("type2-ortho-large", kind=2, norm="ortho", dtype="float32", shape=(1024, 1024))
def idct_values(ctx, kind, norm, dtype, mode="eager", shape=(8, 32)):
    import tensorflow as tf

    x = ctx.rng.standard_normal(shape).astype(dtype)
    fn = by_mode(ctx, lambda t: tf.signal.idct(t, type=kind, norm=norm), mode)
    out = ctx.measure(fn, ctx.put(x))
    expected = _reference(x.astype("float64"), kind, norm)
    scale = np.abs(expected).max()
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(out, expected, rtol=tol, atol=tol * scale)


# idct's kernels are float32 and float64 only (float16/bfloat16 and integers are refused:
# the DCT is built on the float FFT), each type in each mode: type 1 takes only
# norm=None, types 2 and 3 are checked orthonormal; new names, so the cases above keep
# their ids.
@sweep("type{kind}-{dtype}-{mode}-sweep", kind=[1, 2, 3], dtype=["float32", "float64"], mode=MODES)
def idct_dtypes(ctx, kind, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype

    norm = None if kind == 1 else "ortho"
    x = ctx.rng.standard_normal((3, 16)).astype(dtype)
    out = ctx.measure(
        by_mode(ctx, lambda t: tf.signal.idct(t, type=kind, norm=norm), mode), ctx.put(x)
    )
    check_dtype(ctx, out, dtype)
    expected = _reference(x.astype("float64"), kind, norm)
    tol = 1e-5 if dtype == "float32" else 1e-12
    ctx.check_close(out, expected, rtol=tol, atol=tol * np.abs(expected).max())


# idct is linear: the gradient of <idct(x), g> is g times the transposed matrix (for the
# orthonormal type 2, g @ M.T with M the DCT-II matrix), in each dtype and mode.
@sweep("grad-{dtype}-{mode}-sweep", dtype=["float32", "float64"], mode=MODES)
def idct_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype

    x = ctx.put(ctx.rng.standard_normal((2, 8)).astype(dtype))
    g_np = ctx.rng.standard_normal((2, 8)).astype(dtype)
    g = ctx.put(g_np)

    def grad(a, b):
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = tf.reduce_sum(tf.signal.idct(a, type=2, norm="ortho") * b)
        return tape.gradient(y, a)

    out = ctx.measure(by_mode(ctx, grad, mode), x, g)
    check_dtype(ctx, out, dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    ctx.check_close(out, g_np.astype("float64") @ _dct2_ortho(8).T, rtol=tol, atol=tol)


@case("float32-refuses-integers")
def idct_int(ctx):
    import tensorflow as tf
    from tfhelp import raises

    x = ctx.put(np.arange(8, dtype="int32"))
    out = ctx.measure(
        raises(lambda: tf.signal.idct(x), TypeError, ValueError, tf.errors.InvalidArgumentError)
    )
    ctx.check(out is not None, "idct of an int32 tensor raised nothing", "type")


def _reference_n(x, kind, norm, n):
    """_reference on the input cut or zero-padded to length n (idct's n argument)."""
    if n is not None:
        x = (
            x[..., :n]
            if n <= x.shape[-1]
            else np.concatenate([x, np.zeros((*x.shape[:-1], n - x.shape[-1]))], axis=-1)
        )
    if kind == 3 and norm is None:  # idct of type 3 is the unnormalized DCT-II
        size = x.shape[-1]
        k = np.arange(size)[None, :]
        j = np.arange(size)[:, None]
        return 2.0 * x @ np.cos(np.pi * k * (2 * j + 1) / (2 * size))
    return _reference(x, kind, norm)


# The study's other kinds of paths: the documented errors for bad arguments (an unknown
# norm, ortho with type 1, an axis other than -1, n = 0: exact type and message), the full
# grid of idct's flags (type x norm, type 1 has no ortho, x n: absent, shorter, longer), the
# Hessian through nested GradientTapes of sum(idct(x)**2) (2 A^T A, A its matrix) in
# float32 and float64, and tf.vectorized_map of idct, eager, in a tf.function and under XLA.
# New names; the cases above keep their ids.
@sweep("error-{form}", form=["unknown-norm", "ortho-type1", "axis-0", "zero-n"])
def idct_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    x = ctx.put(np.ones((4,), dtype="float32"))
    call, exc, pattern = {
        "unknown-norm": (
            lambda: tf.signal.idct(x, norm="bad"),
            ValueError,
            r"Unknown normalization",
        ),
        "ortho-type1": (
            lambda: tf.signal.idct(x, type=1, norm="ortho"),
            ValueError,
            r"Normalization is not supported for the Type-I DCT",
        ),
        "axis-0": (lambda: tf.signal.idct(x, axis=0), NotImplementedError, r"axis must be -1"),
        "zero-n": (
            lambda: tf.signal.idct(x, n=0),
            ValueError,
            r"n should be a positive integer or None",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)


@sweep(
    "flags-type{kind}-{norm}-n-{n}-sweep",
    kind=[1, 2, 3],
    norm=["ortho", "none"],
    n=["none", "shorter", "longer"],
    exclude=[{"kind": 1, "norm": "ortho"}],
)
def idct_flags(ctx, kind, norm, n):
    import tensorflow as tf

    x = ctx.rng.standard_normal((3, 8))
    length = {"none": None, "shorter": 6, "longer": 11}[n]
    nrm = None if norm == "none" else "ortho"
    out = ctx.measure(lambda t: tf.signal.idct(t, type=kind, n=length, norm=nrm), ctx.put(x))
    ctx.check_close(out, _reference_n(x, kind, nrm, length), rtol=1e-10, atol=1e-10)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def idct_hessian(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_hessian

    a = np.stack([_reference(np.eye(6)[i], 2, "ortho") for i in range(6)], axis=1)
    swept_hessian(
        ctx,
        lambda t: tf.reduce_sum(tf.signal.idct(t, norm="ortho") ** 2),
        lambda x: 2 * a.T @ a,
        dtype,
        mode,
        shape=(6,),
        scale=4.0,
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def idct_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx,
        lambda t: tf.signal.idct(t, norm="ortho"),
        lambda x: _reference(x, 2, "ortho"),
        "float32",
        mode,
        scale=4.0,
    )
