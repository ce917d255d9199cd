"""tf.tensor_scatter_nd_update: element and slice updates, dtypes, graph/XLA, bad indices, gradient."""

import numpy as np
from tfhelp import EVERY_DTYPE, GRAD2_FLOATS, INDEX_INTS, MODES, REAL_FLOATS, by_mode, raises

from portbench_runner.api import case, sweep


@case("float32-elements", dtype="float32")
@case("float64-graph", dtype="float64", mode="graph")
@case("int32-elements", dtype="int32")
@case("bool-elements", dtype="bool")
@case("bfloat16-elements", dtype="bfloat16")
@case("float32-xla", dtype="float32", mode="xla")
@case("float32-large", dtype="float32", shape=(1000, 1000), count=10000)
def scatter_elements(ctx, dtype, mode="eager", shape=(16, 12), count=20):
    import tensorflow as tf

    base = (ctx.rng.standard_normal(shape) * 4).astype(
        "float32" if dtype == "bfloat16" else "float64"
    )
    flat = ctx.rng.choice(base.size, size=count, replace=False)  # unique: order is unspecified
    idx = np.stack(np.unravel_index(flat, shape), axis=1).astype("int32")
    upd = (ctx.rng.standard_normal(count) * 4).astype(base.dtype)
    if dtype == "bool":
        base, upd = base > 0, upd > 0
    elif dtype != "bfloat16":
        base, upd = base.astype(dtype), upd.astype(dtype)
    t, u = ctx.put(base, dtype=dtype), ctx.put(upd, dtype=dtype)
    expected = ctx.to_numpy(t).copy()
    expected[tuple(idx.T)] = ctx.to_numpy(u)
    fn = by_mode(ctx, tf.tensor_scatter_nd_update, mode)
    out = ctx.measure(fn, t, ctx.put(idx), u)
    ctx.check_equal(out, expected)


@case("row-slices")
def scatter_rows(ctx):
    import tensorflow as tf

    base = ctx.rng.standard_normal((6, 5)).astype("float32")
    rows = np.array([[4], [1]], dtype="int64")
    upd = ctx.rng.standard_normal((2, 5)).astype("float32")
    out = ctx.measure(tf.tensor_scatter_nd_update, ctx.put(base), ctx.put(rows), ctx.put(upd))
    expected = base.copy()
    expected[[4, 1]] = upd
    ctx.check_equal(out, expected)


@case("out-of-range-index-raises")
def scatter_bad_index(ctx):
    import tensorflow as tf

    t = ctx.put(np.zeros((4, 4), dtype="float32"))
    idx = ctx.put(np.array([[4, 0]], dtype="int32"))
    u = ctx.put(np.ones(1, dtype="float32"))
    out = ctx.measure(
        raises(lambda: tf.tensor_scatter_nd_update(t, idx, u), tf.errors.InvalidArgumentError)
    )
    ctx.check(
        out == "InvalidArgumentError", f"index [4, 0] into a 4x4 tensor raised {out}", "other"
    )


@case("gradient-masks-updated")
def scatter_grad(ctx):
    import tensorflow as tf

    t = ctx.put(ctx.rng.standard_normal((3, 3)).astype("float32"))
    idx = ctx.put(np.array([[0, 0], [2, 1]], dtype="int32"))
    u = ctx.put(np.array([5.0, 6.0], dtype="float32"))

    def grads():
        with tf.GradientTape() as tape:
            tape.watch([t, u])
            y = tf.reduce_sum(tf.tensor_scatter_nd_update(t, idx, u) * 2.0)
        return tape.gradient(y, [t, u])

    gt, gu = ctx.measure(grads)
    mask = np.full((3, 3), 2.0)
    mask[0, 0] = mask[2, 1] = 0.0
    ctx.check_close(gt, mask, dtype="float32", what="d/dtensor")
    ctx.check_close(gu, np.full(2, 2.0), dtype="float32", what="d/dupdates")


@case("string-elements")
def scatter_strings(ctx):
    import tensorflow as tf

    # The study's testTensorScatterUpdateWithStrings: string tensors have no GPU/TPU kernel.
    with ctx.on_device():
        base = tf.constant(["a", "b", "c", "d"])
        updates = tf.constant(["x", "y"])
        indices = tf.constant([[1], [3]])
    out = ctx.measure(tf.tensor_scatter_nd_update, base, indices, updates)
    ctx.check_equal(out, np.array([b"a", b"x", b"c", b"y"], dtype=object))


# Every dtype a tensor can hold, eager, in a tf.function and under XLA: a scatter copies
# values, so every result is exact. Element updates at unique positions (the order of
# duplicates is unspecified), in both index dtypes TensorFlow takes.
@sweep(
    "{dtype}-{index}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    index=INDEX_INTS,
    mode=MODES,
)
def scatter_dtypes(ctx, dtype, index, mode):
    import tensorflow as tf
    from tfhelp import draw, placed

    shape = (9, 7)
    t, base = placed(ctx, draw(ctx, shape, dtype, 0, 9), dtype)
    u, upd = placed(ctx, draw(ctx, (12,), dtype, 0, 9), dtype)
    flat = ctx.rng.choice(base.size, size=12, replace=False)
    idx = np.stack(np.unravel_index(flat, shape), axis=1).astype(index)
    expected = base.copy()
    expected[tuple(idx.T)] = upd
    out = ctx.measure(by_mode(ctx, tf.tensor_scatter_nd_update, mode), t, ctx.put(idx), u)
    ctx.check(out.dtype == t.dtype, f"dtype {out.dtype.name}, not {t.dtype.name}", "type")
    ctx.check_equal(out, expected)


# Argument forms: whole slices of a 3-d tensor (index depth 1 and 2), no update at all, a
# 1-d tensor, and an index pointing past the end inside a tf.function (refused at run time).
@sweep("{form}-form-sweep", form=["depth-1-slices", "depth-2-rows", "no-updates", "vector"])
def scatter_forms(ctx, form):
    import tensorflow as tf

    base = ctx.rng.standard_normal((4, 3, 5)).astype("float32")
    expected = base.copy()
    if form == "depth-1-slices":
        idx = np.array([[3], [0]], dtype="int32")
        upd = ctx.rng.standard_normal((2, 3, 5)).astype("float32")
        expected[[3, 0]] = upd
    elif form == "depth-2-rows":
        idx = np.array([[1, 2], [3, 0], [0, 1]], dtype="int64")
        upd = ctx.rng.standard_normal((3, 5)).astype("float32")
        expected[idx[:, 0], idx[:, 1]] = upd
    elif form == "no-updates":
        idx = np.zeros((0, 2), dtype="int32")
        upd = np.zeros((0, 5), dtype="float32")
    else:
        base = base.reshape(-1)
        expected = base.copy()
        idx = np.array([[59], [7], [0]], dtype="int32")
        upd = np.array([1.5, -2.0, 8.25], dtype="float32")
        expected[[59, 7, 0]] = upd
    out = ctx.measure(tf.tensor_scatter_nd_update, ctx.put(base), ctx.put(idx), ctx.put(upd))
    ctx.check_equal(out, expected)


# Gradients in each float dtype and mode: d/dtensor is 1 where nothing was written, 0 where
# an update landed; d/dupdates is the upstream gradient at those positions.
@sweep(
    "grad-{dtype}-{mode}-sweep",
    dtype=REAL_FLOATS,
    mode=MODES,
)
def scatter_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf

    t = ctx.put(ctx.rng.standard_normal((4, 4)).astype("float32"), dtype=dtype)
    u = ctx.put(np.array([1.0, 2.0, 3.0], dtype="float32"), dtype=dtype)
    idx = ctx.put(np.array([[0, 3], [2, 2], [3, 0]], dtype="int32"))
    weights = ctx.put(np.arange(16, dtype="float32").reshape(4, 4), dtype=dtype)

    def grads(t, u):
        with tf.GradientTape() as tape:
            tape.watch([t, u])
            y = tf.reduce_sum(tf.tensor_scatter_nd_update(t, idx, u) * weights)
        return tape.gradient(y, [t, u])

    gt, gu = ctx.measure(by_mode(ctx, grads, mode), t, u)
    w = np.arange(16, dtype="float64").reshape(4, 4)
    mask = np.ones((4, 4))
    mask[[0, 2, 3], [3, 2, 0]] = 0.0
    ctx.check_close(gt, w * mask, dtype=dtype)
    ctx.check_close(gu, w[[0, 2, 3], [3, 2, 0]], dtype=dtype)


# The study's other kinds of paths: the documented errors for bad indices and updates (an
# index out of range, index vectors deeper than the tensor, updates of the wrong length:
# exact type and message), duplicate indices (the study's own tests: on the CPU the last
# update wins; TensorFlow documents the order as nondeterministic on GPUs, so elsewhere each
# duplicated target holds one of its updates), the Hessian through nested GradientTapes of
# sum(scatter(x)**3) in x (diag(6x), 0 where overwritten) in float32 and float64, and
# tf.vectorized_map of a scatter over a batch, eager, in a tf.function and under XLA. New
# names; the cases above keep their ids.
@sweep("error-{form}", form=["index-out-of-range", "index-too-deep", "updates-length"])
def scatter_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    t = ctx.put(np.zeros(4, dtype="float32"))
    idx, upd, pattern = {
        "index-out-of-range": ([[5]], [1.0], r"indices\[0\] = \[5\] does not index into"),
        "index-too-deep": ([[1, 2]], [1.0], r"Inner dimensions of output shape must match"),
        "updates-length": ([[1]], [1.0, 2.0], r"Outer dimensions of indices and update"),
    }[form]
    check_raises(
        ctx,
        lambda: tf.tensor_scatter_nd_update(t, idx, upd),
        tf.errors.InvalidArgumentError,
        pattern,
    )


@sweep("duplicate-{form}-{mode}-sweep", form=["elements", "rows"], mode=MODES)
def scatter_duplicates(ctx, form, mode):
    import tensorflow as tf

    if form == "elements":
        base = np.zeros((10, 1), dtype="float32")
        idx = np.array([[5], [2], [5], [5]], dtype="int32")
        upd = np.array([[4.0], [1.0], [8.0], [6.0]], dtype="float32")
    else:
        base = np.zeros((4, 5), dtype="float32")
        idx = np.array([[1], [3], [3]], dtype="int32")
        upd = np.arange(15, dtype="float32").reshape(3, 5) + 1
    out = np.asarray(
        ctx.to_numpy(
            ctx.measure(
                by_mode(ctx, tf.tensor_scatter_nd_update, mode),
                ctx.put(base),
                ctx.put(idx),
                ctx.put(upd),
            )
        )
    )
    targets = idx[:, 0]
    for t in np.unique(targets):
        candidates = upd[targets == t]
        if ctx.flavor == "cpu":
            ctx.check_equal(
                out[t], candidates[-1], what=f"row {t}, written {len(candidates)} times (last wins)"
            )
        else:
            ctx.check(
                any(np.array_equal(out[t], c) for c in candidates),
                f"row {t} holds none of its updates",
                "other",
            )
    untouched = np.setdiff1d(np.arange(base.shape[0]), targets)
    ctx.check_equal(out[untouched], base[untouched])


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def scatter_hessian(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_hessian

    idx = np.array([[1], [4]], dtype="int32")
    kept = np.ones(6)
    kept[[1, 4]] = 0.0

    def f(t):
        return tf.reduce_sum(tf.tensor_scatter_nd_update(t, idx, tf.ones(2, t.dtype)) ** 3)

    swept_hessian(ctx, f, lambda x: np.diag(6 * x * kept), dtype, mode, shape=(6,))


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def scatter_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    idx = np.array([[0, 1], [3, 2]], dtype="int32")

    def ref(x):
        out = x.copy()
        out[0, 1], out[3, 2] = -1.0, -2.0
        return out

    swept_vectorized_map(
        ctx,
        lambda t: tf.tensor_scatter_nd_update(t, idx, tf.constant([-1.0, -2.0])),
        ref,
        "float32",
        mode,
        shape=(5, 4, 3),
    )
