"""tf.linalg.set_diag: square, batched, rectangular, bands k, dtypes, graph/XLA, gradient."""

import numpy as np
from tfhelp import ALL_DTYPES, COMPLEXES, GRAD2_FLOATS, MODES, REAL_FLOATS, by_mode

from portbench_runner.api import case, sweep


@case("float32-square", dtype="float32", shape=(8, 8))
@case("float64-batched-graph", dtype="float64", shape=(3, 5, 5), mode="graph")
@case("int32-tall", dtype="int32", shape=(6, 4))
@case("float32-wide", dtype="float32", shape=(2, 3, 7))
@case("bool-square", dtype="bool", shape=(4, 4))
@case("float32-xla", dtype="float32", shape=(6, 6), mode="xla")
@case("float32-large", dtype="float32", shape=(1000, 1000))
def set_main_diag(ctx, dtype, shape, mode="eager"):
    import tensorflow as tf

    n = min(shape[-2:])
    if dtype == "bool":
        x = ctx.rng.random(shape) > 0.5
        d = ctx.rng.random((*shape[:-2], n)) > 0.5
    else:
        x = (ctx.rng.standard_normal(shape) * 5).astype(dtype)
        d = (ctx.rng.standard_normal((*shape[:-2], n)) * 5).astype(dtype)
    fn = by_mode(ctx, tf.linalg.set_diag, mode)
    out = ctx.measure(fn, ctx.put(x), ctx.put(d))
    expected = x.copy()
    idx = np.arange(n)
    expected[..., idx, idx] = d
    ctx.check_equal(out, expected)


@case("superdiagonal-k1")
def set_super_diag(ctx):
    import tensorflow as tf

    x = ctx.rng.standard_normal((5, 5)).astype("float32")
    d = ctx.rng.standard_normal(4).astype("float32")
    out = ctx.measure(tf.linalg.set_diag, ctx.put(x), ctx.put(d), k=1)
    expected = x.copy()
    expected[np.arange(4), np.arange(1, 5)] = d
    ctx.check_equal(out, expected)


@case("gradient-splits-input-and-diag")
def set_diag_grad(ctx):
    import tensorflow as tf

    x = ctx.put(ctx.rng.standard_normal((4, 4)).astype("float32"))
    d = ctx.put(ctx.rng.standard_normal(4).astype("float32"))

    def grads():
        with tf.GradientTape() as tape:
            tape.watch([x, d])
            y = tf.reduce_sum(tf.linalg.set_diag(x, d) * 3.0)
        return tape.gradient(y, [x, d])

    gx, gd = ctx.measure(grads)
    ctx.check_close(gx, 3.0 * (1.0 - np.eye(4)), dtype="float32", what="d/dinput")
    ctx.check_close(gd, np.full(4, 3.0), dtype="float32", what="d/ddiagonal")


# Every dtype set_diag takes on the CPU (it only moves values), eager, in a tf.function and
# under XLA, on a batch of wide matrices; new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=ALL_DTYPES, mode=MODES)
def set_diag_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import draw, placed

    x, x_host = placed(ctx, draw(ctx, (2, 4, 5), dtype, -9, 9), dtype)
    d, d_host = placed(ctx, draw(ctx, (2, 4), dtype, -9, 9), dtype)
    out = ctx.measure(by_mode(ctx, tf.linalg.set_diag, mode), x, d)
    expected = x_host.copy()
    expected[..., np.arange(4), np.arange(4)] = d_host
    ctx.check_equal(out, expected)


# A band of diagonals k=(lo, hi) with each alignment: diagonals stored longest first, the
# shorter ones padded on the side `align` names (LEFT or RIGHT per super/sub diagonal).
@sweep("band-{align}-{mode}-sweep", align=["RIGHT_LEFT", "LEFT_RIGHT"], mode=MODES)
def set_diag_band(ctx, align, mode):
    import tensorflow as tf

    x = ctx.rng.standard_normal((4, 5)).astype("float32")
    diags = ctx.rng.standard_normal((3, 4)).astype("float32")  # k = 1, 0, -1; longest is 4
    fn = lambda t, d: tf.linalg.set_diag(t, d, k=(-1, 1), align=align)  # noqa: E731
    out = ctx.measure(by_mode(ctx, fn, mode), ctx.put(x), ctx.put(diags))
    expected = x.copy()
    for row, k in enumerate((1, 0, -1)):
        n = min(4 - max(-k, 0), 5 - max(k, 0))  # length of diagonal k in a 4x5 matrix
        side = align.split("_")[0 if k >= 0 else 1]
        values = diags[row, :n] if side == "LEFT" else diags[row, 4 - n :]
        i = np.arange(n) + max(-k, 0)
        expected[i, i + k] = values
    ctx.check_equal(out, expected)


# The gradient splits between the input (zero on the diagonal) and the diagonal, in every
# float and complex dtype and mode.
@sweep("grad-{dtype}-{mode}-sweep", dtype=REAL_FLOATS + COMPLEXES, mode=MODES)
def set_diag_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_swept, draw

    x = ctx.put(draw(ctx, (3, 3), dtype), dtype=dtype)
    d = ctx.put(draw(ctx, (3,), dtype), dtype=dtype)

    def grads(a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = tf.reduce_sum(tf.linalg.set_diag(a, b) * tf.cast(3.0, a.dtype))
        return tape.gradient(y, [a, b])

    gx, gd = ctx.measure(by_mode(ctx, grads, mode), x, d)
    check_swept(ctx, gx, 3.0 * (1.0 - np.eye(3)))
    check_swept(ctx, gd, np.full(3, 3.0))


def _set_diags(x, diags, k, align):
    """set_diag's documented result: diagonals k (an int or a (lo, hi) band) of x replaced,
    a band stored longest first with the shorter ones aligned as ``align`` says."""
    out = x.copy()
    rows, cols = x.shape[-2:]
    lo, hi = (k, k) if isinstance(k, int) else k
    table = diags if isinstance(k, tuple) else diags[None]
    longest = table.shape[-1]
    for row, d in enumerate(range(hi, lo - 1, -1)):
        n = min(rows - max(-d, 0), cols - max(d, 0))
        side = align.split("_")[0 if d >= 0 else 1]
        values = table[row, :n] if side == "LEFT" else table[row, longest - n :]
        i = np.arange(n) + max(-d, 0)
        out[i, i + d] = values
    return out


# The study's other kinds of paths: the documented errors for bad arguments (a diagonal of
# the wrong length, a 1-d input: exact type and message), the full grid of k (main, a
# superdiagonal, a band) x align (all four), the Hessian through nested GradientTapes of
# sum(set_diag(x, d)**3) in x (diag(6x) off the diagonal, 0 on it) in float32 and float64,
# and tf.vectorized_map of set_diag over a batch, eager, in a tf.function and under XLA. New
# names; the cases above keep their ids.
@sweep("error-{form}", form=["diagonal-length", "one-d-input"])
def set_diag_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "diagonal-length":
        x, d = ctx.put(np.ones((3, 3), dtype="float32")), ctx.put(np.ones(4, dtype="float32"))
        check_raises(
            ctx,
            lambda: tf.linalg.set_diag(x, d),
            tf.errors.InvalidArgumentError,
            r"first dimensions of diagonal don't match",
        )
    else:
        v = ctx.put(np.ones(3, dtype="float32"))
        check_raises(
            ctx,
            lambda: tf.linalg.set_diag(v, v),
            tf.errors.InvalidArgumentError,
            r"input must be at least 2-dim",
        )


@sweep(
    "flags-k-{k}-{align}-sweep",
    k=["main", "super", "band"],
    align=["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"],
)
def set_diag_flags(ctx, k, align):
    import tensorflow as tf

    x = ctx.rng.standard_normal((4, 5)).astype("float32")
    kk = {"main": 0, "super": 1, "band": (-1, 1)}[k]
    width = {"main": 4, "super": 4, "band": 4}[k]
    diags = ctx.rng.standard_normal((3, width) if k == "band" else (width,)).astype("float32")
    out = ctx.measure(
        lambda t, d: tf.linalg.set_diag(t, d, k=kk, align=align), ctx.put(x), ctx.put(diags)
    )
    ctx.check_equal(out, _set_diags(x, diags, kk, align))


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def set_diag_hessian(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_hessian

    off = 1.0 - np.eye(3).ravel()

    def f(t):
        m = tf.reshape(t, (3, 3))
        return tf.reduce_sum(tf.linalg.set_diag(m, tf.ones(3, t.dtype)) ** 3)

    swept_hessian(ctx, f, lambda x: np.diag(6 * x * off), dtype, mode, shape=(9,))


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def set_diag_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    def ref(x):
        out = x.copy()
        np.fill_diagonal(out, -1.0)
        return out

    swept_vectorized_map(
        ctx,
        lambda t: tf.linalg.set_diag(t, -tf.ones(5, t.dtype)),
        ref,
        "float32",
        mode,
        shape=(6, 5, 7),
    )
