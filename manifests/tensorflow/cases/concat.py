"""tf.TensorArray.concat: elements of different lengths joined along axis 0; eager, graph and XLA loops."""

import numpy as np
from tfhelp import EVERY_DTYPE, GRAD2_FLOATS, MODES, REAL_FLOATS, by_mode

from portbench_runner.api import case, sweep


@case("float32-ragged-rows", dtype="float32", lengths=[3, 1, 4, 2])
@case("float64-equal-rows", dtype="float64", lengths=[5, 5, 5])
@case("int32-with-empty", dtype="int32", lengths=[2, 0, 3])
@case("float32-large", dtype="float32", lengths=[250_000] * 4)
def eager(ctx, dtype, lengths):
    import tensorflow as tf

    parts = [(ctx.rng.standard_normal((n, 3)) * 10).astype(dtype) for n in lengths]
    ta = tf.TensorArray(getattr(tf, dtype), size=len(parts), infer_shape=False)
    for i, p in enumerate(parts):
        ta = ta.write(i, ctx.put(p))
    out = ctx.measure(ta.concat)
    ctx.check_equal(out, np.concatenate(parts))


@case("loop-graph", mode="graph")
@case("loop-xla", mode="xla")
def in_loop(ctx, mode):
    import tensorflow as tf

    def fn(x):
        ta = tf.TensorArray(tf.float32, size=4, element_shape=[2])
        for i in tf.range(4):
            ta = ta.write(i, x * tf.cast(i, tf.float32))
        return ta.concat()

    out = ctx.measure(by_mode(ctx, fn, mode), ctx.put(np.array([1.0, 2.0], dtype="float32")))
    ctx.check_equal(
        out, np.concatenate([np.array([1.0, 2.0], dtype="float32") * i for i in range(4)])
    )


@case("gradient-through-concat")
def gradient(ctx):
    import tensorflow as tf

    x = ctx.put(np.array([1.0, 2.0, 3.0], dtype="float32"))

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)
            ta = ta.write(0, x * 2.0).write(1, x[:2] * 5.0)
            y = tf.reduce_sum(ta.concat())
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    ctx.check_close(out, np.array([7.0, 7.0, 2.0]), dtype="float32")


# Every dtype a TensorArray holds, eager and in a tf.function with rows of different
# lengths, and under XLA, which needs one static element shape (a TensorList of ragged
# elements cannot be compiled); new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def concat_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype, draw_any, placed

    lengths = [2, 2, 2] if mode == "xla" else [3, 0, 1, 2]
    parts = [placed(ctx, draw_any(ctx, (n, 2), dtype), dtype) for n in lengths]

    def fn(*elems):
        shape = [2, 2] if mode == "xla" else None
        ta = tf.TensorArray(
            getattr(tf, dtype), size=len(elems), infer_shape=mode == "xla", element_shape=shape
        )
        for i, e in enumerate(elems):
            ta = ta.write(i, e)
        return ta.concat()

    out = ctx.measure(by_mode(ctx, fn, mode), *(p[0] for p in parts))
    check_dtype(ctx, out, dtype)
    expected = np.concatenate([p[1] for p in parts])
    ctx.check_equal(ctx.to_numpy(out), expected.astype(ctx.to_numpy(out).dtype))


# The gradient splits the upstream gradient back into the written elements, in every
# float dtype and mode: d sum(concat * w) / d element_i = the rows of w it covers.
@sweep("grad-{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def concat_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype, check_swept, draw, placed

    x, _ = placed(ctx, draw(ctx, (2, 3), dtype), dtype)
    w, ws = placed(ctx, draw(ctx, (4, 3), dtype), dtype)

    def grad(a, b):
        with tf.GradientTape() as tape:
            tape.watch(a)
            ta = tf.TensorArray(a.dtype, size=2, element_shape=[2, 3])
            ta = ta.write(0, a).write(1, a * 2)
            y = tf.reduce_sum(ta.concat() * b)
        return tape.gradient(y, a)

    out = ctx.measure(by_mode(ctx, grad, mode), x, w)
    check_dtype(ctx, out, dtype)
    check_swept(ctx, out, ws[:2] + 2 * ws[2:], scale=2.0)


# The study's other kinds of paths for the TensorArray container: the documented errors for
# bad use (a write of another dtype, an element of another shape, a read past the size, a
# concat of scalars: exact type and message), index forms around concat (elements written by
# scatter, written out of order, a gather of chosen elements, split then concat), second
# derivatives through nested GradientTapes of sum(concat(x)**3) (diag(6x)) in float32 and
# float64, eager, in a tf.function and under XLA. New names; the cases above keep their ids.
@sweep("error-{form}", form=["write-dtype", "element-shape", "read-past-size", "concat-scalars"])
def concat_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    def write_dtype():
        return (
            tf.TensorArray(tf.float32, size=2, infer_shape=False)
            .write(0, tf.ones(2, tf.int32))
            .concat()
        )

    def element_shape():
        return tf.TensorArray(tf.float32, size=2, element_shape=(3,)).write(0, tf.ones(4)).concat()

    def read_past_size():
        return tf.TensorArray(tf.float32, size=2).write(0, tf.ones(2)).write(1, tf.ones(2)).read(5)

    def concat_scalars():
        return tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(1, 2.0).concat()

    call, exc, pattern = {
        "write-dtype": (
            write_dtype,
            tf.errors.InvalidArgumentError,
            r"TensorArray dtype is float32 but Op is trying to write dtype int32",
        ),
        "element-shape": (
            element_shape,
            ValueError,
            r"Incompatible shape for value \(\(4,\)\), expected \(\(3,\)\)",
        ),
        "read-past-size": (
            read_past_size,
            tf.errors.OutOfRangeError,
            r"Tried to read from index 5 but array size is: 2",
        ),
        "concat-scalars": (
            concat_scalars,
            tf.errors.InvalidArgumentError,
            r"Concat saw a scalar shape at index 0 but requires at least vectors",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)


@sweep(
    "index-{form}-{mode}-sweep",
    form=["scatter", "out-of-order-writes", "gather", "split"],
    mode=MODES,
)
def concat_index_forms(ctx, form, mode):
    import tensorflow as tf

    rows = np.arange(15, dtype="float32").reshape(5, 3)

    def act(x):
        if form == "scatter":
            ta = tf.TensorArray(tf.float32, size=5).scatter([4, 0, 2, 1, 3], x)
            return ta.concat()
        if form == "out-of-order-writes":
            ta = tf.TensorArray(tf.float32, size=5)
            for i in (3, 0, 4, 1, 2):
                ta = ta.write(i, x[i])
            return ta.concat()
        if form == "gather":
            return tf.TensorArray(tf.float32, size=5).unstack(x).gather([4, 1, 4])
        ta = tf.TensorArray(tf.float32, size=3, infer_shape=False).split(
            tf.reshape(x, (-1,)), [4, 5, 6]
        )
        return ta.concat()

    out = ctx.measure(by_mode(ctx, act, mode), ctx.put(rows))
    expected = {
        "scatter": rows[[1, 3, 2, 4, 0]].reshape(-1),
        "out-of-order-writes": rows.reshape(-1),
        "gather": rows[[4, 1, 4]],
        "split": rows.reshape(-1),
    }[form]
    ctx.check_equal(out, expected)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def concat_hessian(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_hessian

    def f(t):
        ta = tf.TensorArray(t.dtype, size=2, infer_shape=False)
        # Equal parts: XLA splits only into equal lengths (index-split-xla shows the limit).
        ta = ta.write(0, t[:3]).write(1, t[3:])
        return tf.reduce_sum(ta.concat() ** 3)

    # The Jacobian's vectorizer has no rule for TensorArray ops in a graph: row by row.
    swept_hessian(ctx, f, lambda x: np.diag(6 * x), dtype, mode, shape=(6,), pfor=False)
