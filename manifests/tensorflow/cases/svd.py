"""tf.linalg.svd: singular values, reconstruction, batches, full_matrices, XLA."""

import numpy as np
from tfhelp import COMPLEXES, MODES, by_mode

from portbench_runner.api import case, sweep

# The real dtypes the Svd op declares (no bfloat16).
SVD_REALS = ("float16", "float32", "float64")


@case("float32-values", dtype="float32", shape=(64, 64))
@case("float64-uv", dtype="float64", shape=(48, 24), compute_uv=True)
@case("float32-batched-uv", dtype="float32", shape=(8, 16, 12), compute_uv=True)
@case("float32-xla", dtype="float32", shape=(32, 32), xla=True)
@case("float32-large", dtype="float32", shape=(512, 512))
def svd_values(ctx, dtype, shape, compute_uv=False, xla=False):
    import tensorflow as tf

    a = ctx.rng.standard_normal(shape).astype(dtype)
    fn = lambda t: tf.linalg.svd(t, compute_uv=compute_uv)  # noqa: E731
    if xla:
        fn = ctx.compiled(fn)
    out = ctx.measure(fn, ctx.put(a))
    tol = 1e-4 if dtype == "float32" else 1e-10
    expected_s = np.linalg.svd(a.astype("float64"), compute_uv=False)
    s = out[0] if compute_uv else out
    ctx.check_close(s, expected_s, rtol=tol, atol=tol * expected_s.max())
    if compute_uv:
        s_np, u, v = (ctx.to_numpy(t).astype("float64") for t in out)
        rebuilt = u @ (s_np[..., :, None] * np.swapaxes(v, -1, -2))
        ctx.check_close(
            rebuilt,
            a.astype("float64"),
            rtol=tol * 10,
            atol=tol * 10 * expected_s.max(),
            what="U S V^T",
        )


# Every dtype the Svd op declares (float16 besides float32/64 and complex64/128), eager, in
# a tf.function and under XLA, tall and wide, reduced and full U/V: the singular values
# match NumPy's (descending, real), U S V^H rebuilds the input and U, V have orthonormal
# columns; tolerances scale with the dtype's epsilon. New names, so the cases above keep
# their ids.
@sweep(
    "{dtype}-{mode}-{form}-sweep",
    dtype=SVD_REALS + COMPLEXES,
    mode=MODES,
    form=["tall", "wide-full"],
)
def svd_dtypes(ctx, dtype, mode, form):
    import tensorflow as tf
    from tfhelp import draw, placed

    shape, full = ((2, 9, 6), False) if form == "tall" else ((2, 5, 8), True)
    a, exact = placed(ctx, draw(ctx, shape, dtype, -1, 1), dtype)
    fn = lambda t: tf.linalg.svd(t, full_matrices=full)  # noqa: E731
    s, u, v = ctx.measure(by_mode(ctx, fn, mode), a)
    tol = {"float16": 2e-2, "float32": 1e-4, "complex64": 1e-4}.get(dtype, 1e-10)
    s_np, u_np, v_np = (np.asarray(ctx.to_numpy(t)).astype(exact.dtype) for t in (s, u, v))
    ctx.check_close(s_np.real, np.linalg.svd(exact, compute_uv=False), rtol=tol, atol=tol * 4)
    k = min(shape[-2:])
    rebuilt = (u_np[..., :, :k] * s_np[..., None, :]) @ np.conj(
        np.swapaxes(v_np[..., :, :k], -1, -2)
    )
    ctx.check_close(rebuilt, exact, rtol=tol, atol=tol * 4, what="U S V^H")
    for name, m in (("U", u_np), ("V", v_np)):
        gram = np.conj(np.swapaxes(m, -1, -2)) @ m
        ctx.check_close(
            gram,
            np.broadcast_to(np.eye(m.shape[-1]), gram.shape),
            rtol=tol,
            atol=tol * 4,
            what=f"{name}^H {name}",
        )
    ctx.check(
        u_np.shape[-1] == (shape[-2] if full else k)
        and v_np.shape[-1] == (shape[-1] if full else k),
        f"full_matrices={full}: U {u_np.shape}, V {v_np.shape}",
        "other",
    )


# The gradient of the sum of singular values is U V^T (distinct singular values), in both
# real dtypes and every mode.
@sweep("grad-{dtype}-{mode}-sweep", dtype=["float32", "float64"], mode=MODES)
def svd_grad(ctx, dtype, mode):
    import tensorflow as tf

    a = ctx.rng.standard_normal((5, 4)).astype(dtype)
    x = ctx.put(a)

    def grad(t):
        with tf.GradientTape() as tape:
            tape.watch(t)
            y = tf.reduce_sum(tf.linalg.svd(t, compute_uv=False))
        return tape.gradient(y, t)

    out = ctx.measure(by_mode(ctx, grad, mode), x)
    u, _, vt = np.linalg.svd(a.astype("float64"), full_matrices=False)
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(out, u @ vt, rtol=tol, atol=tol)


# The study's other kinds of paths: the documented errors for bad inputs (a 1-d input,
# integers: exact type and message), the full grid of full_matrices x compute_uv, and
# tf.vectorized_map of svd over a batch (singular values), eager, in a tf.function and
# under XLA. New names; the cases above keep their ids.
@sweep("error-{form}", form=["one-d-input", "integer-input"])
def svd_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "one-d-input":
        v = ctx.put(np.ones(3, dtype="float32"))
        check_raises(
            ctx,
            lambda: tf.linalg.svd(v),
            tf.errors.InvalidArgumentError,
            r"Input tensor 0 must have rank >= 2",
        )
    else:
        m = ctx.put(np.ones((3, 3), dtype="int32"))
        check_raises(
            ctx,
            lambda: tf.linalg.svd(m),
            tf.errors.InvalidArgumentError,
            r"Value for attr 'T' of int32 is not in the list of allowed values",
        )


@sweep("flags-{full}-{uv}-sweep", full=["full-matrices", "reduced"], uv=["uv", "values-only"])
def svd_flags(ctx, full, uv):
    import tensorflow as tf

    a = ctx.rng.standard_normal((7, 4))
    flags = {"full_matrices": full == "full-matrices", "compute_uv": uv == "uv"}
    out = ctx.measure(lambda m: tf.linalg.svd(m, **flags), ctx.put(a))
    singular = np.linalg.svd(a, compute_uv=False)
    if not flags["compute_uv"]:
        ctx.check_close(out, singular, rtol=1e-10, atol=1e-10)
        return
    s, u, v = (np.asarray(ctx.to_numpy(t)) for t in out)  # TF returns (s, u, v), not vh
    ctx.check(
        u.shape == ((7, 7) if flags["full_matrices"] else (7, 4)), f"u has shape {u.shape}", "other"
    )
    ctx.check_close(s, singular, rtol=1e-10, atol=1e-10)
    ctx.check_close(u[:, :4] * s @ v.T, a, rtol=1e-10, atol=1e-10, what="u s v^T")


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def svd_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx,
        lambda t: tf.linalg.svd(t, compute_uv=False),
        lambda x: np.linalg.svd(x, compute_uv=False),
        "float32",
        mode,
        shape=(4, 5, 3),
        scale=10.0,
    )
