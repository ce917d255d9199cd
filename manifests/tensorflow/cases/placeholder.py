"""tf.compat.v1.placeholder: fed values flow through a TF1 graph run in a Session; shapes and errors."""

import numpy as np
from tfhelp import ALL_DTYPES, boxed, raises, v1_graph, v1_session

from portbench_runner.api import case, sweep


@case("float32-matrix", dtype="float32", shape=(None, 8), feed=(16, 8))
@case("float64-unknown-rank", dtype="float64", shape=None, feed=(2, 3, 4))
@case("int32-scalar", dtype="int32", shape=(), feed=())
@case("float32-large", dtype="float32", shape=(None,), feed=(1_000_000,))
def fed(ctx, dtype, shape, feed):
    import tensorflow as tf

    value = (ctx.rng.standard_normal(feed) * 10).astype(dtype)
    with v1_graph(ctx) as graph:
        p = tf.compat.v1.placeholder(getattr(tf, dtype), shape=shape)
        y = p * 2 + 1
    with v1_session(graph) as sess:
        out = ctx.measure(sess.run, y, feed_dict={p: value})
    expected = value * 2 + 1
    ctx.check_close(out, expected, dtype=dtype)


@case("missing-feed-raises")
def missing(ctx):
    import tensorflow as tf

    with v1_graph(ctx) as graph:
        p = tf.compat.v1.placeholder(tf.float32, [2])
        y = p + 1.0
    with v1_session(graph) as sess:
        out = ctx.measure(raises(lambda: sess.run(y), tf.errors.InvalidArgumentError))
    ctx.check(out == "InvalidArgumentError", f"running without a feed raised {out}", "other")


@case("wrong-shape-feed-raises")
def wrong_shape(ctx):
    import tensorflow as tf

    with v1_graph(ctx) as graph:
        p = tf.compat.v1.placeholder(tf.float32, [None, 3])
        y = p + 1.0
    with v1_session(graph) as sess:
        out = ctx.measure(raises(lambda: sess.run(y, {p: np.zeros((2, 4))}), ValueError))
    ctx.check(out == "ValueError", f"feeding shape (2, 4) to (?, 3) raised {out}", "other")


@case("static-shape-recorded")
def static_shape(ctx):
    import tensorflow as tf

    with v1_graph(ctx):
        p = ctx.measure(boxed(tf.compat.v1.placeholder), tf.bfloat16, [None, 5], name="inp").value
    ctx.check(p.shape.as_list() == [None, 5] and p.dtype == tf.bfloat16, f"{p}", "other")
    ctx.check(p.op.type == "Placeholder" and p.name == "inp:0", f"op {p.op.type} {p.name}", "other")


@case("eager-raises")
def eager(ctx):
    import tensorflow as tf

    out = ctx.measure(raises(lambda: tf.compat.v1.placeholder(tf.float32), RuntimeError))
    ctx.check(out == "RuntimeError", f"a placeholder in eager mode raised {out}", "other")


# A placeholder of every dtype, fed and fetched through a graph op (a reverse, which takes
# every dtype) in a Session; new names, so the cases above keep their ids.
@sweep("{dtype}-fed-sweep", dtype=ALL_DTYPES)
def fed_dtypes(ctx, dtype):
    import tensorflow as tf
    from tfhelp import draw, host_exact

    value = draw(ctx, (5, 4), dtype, -9, 9)
    fed = host_exact(ctx, ctx.put(value, dtype=dtype))  # bfloat16: the rounded value
    with v1_graph(ctx) as graph:
        p = tf.compat.v1.placeholder(getattr(tf, dtype), shape=(None, 4))
        y = tf.reverse(p, [0])
    with v1_session(graph) as sess:
        out = ctx.measure(sess.run, y, feed_dict={p: fed})
    ctx.check(np.asarray(out).shape == (5, 4), f"shape {np.asarray(out).shape}", "other")
    ctx.check_equal(out, fed[::-1])


# Shape forms: fully open, partially known with the fed batch varying, an empty batch,
# a scalar fed as a Python number, and a name the feed refers to as a string.
@sweep(
    "shape-{form}-sweep",
    form=["open-rank", "partial", "empty-batch", "python-scalar", "fed-by-name"],
)
def shape_forms(ctx, form):
    import tensorflow as tf

    shape, value = {
        "open-rank": (None, np.arange(24.0, dtype="float32").reshape(2, 3, 4)),
        "partial": ([None, 3], np.arange(15.0, dtype="float32").reshape(5, 3)),
        "empty-batch": ([None, 3], np.zeros((0, 3), dtype="float32")),
        "python-scalar": ([], 2.5),
        "fed-by-name": ([2], np.array([1.0, -1.0], dtype="float32")),
    }[form]
    with v1_graph(ctx) as graph:
        p = tf.compat.v1.placeholder(tf.float32, shape=shape, name="inp")
        y = p * 3.0
    feed = {"inp:0" if form == "fed-by-name" else p: value}
    with v1_session(graph) as sess:
        out = ctx.measure(sess.run, y, feed_dict=feed)
    static = None if p.shape.rank is None else p.shape.as_list()
    ctx.check(static == shape, f"static shape {p.shape}, declared {shape}", "other")
    ctx.check_close(out, np.asarray(value, dtype="float64") * 3.0, dtype="float32")


# The study's other kind of path here: the documented errors (a placeholder in eager mode, a
# fetch without its feed, a feed of another shape: exact type and message). New names; the
# cases above keep their ids.
@sweep("error-{form}", form=["eager", "missing-feed", "feed-shape"])
def placeholder_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    v1 = tf.compat.v1
    if form == "eager":
        check_raises(
            ctx,
            lambda: v1.placeholder(tf.float32),
            RuntimeError,
            r"tf\.placeholder\(\) is not compatible with eager execution",
        )
        return
    with v1_graph(ctx) as graph:
        x = v1.placeholder(tf.float32, (2,))
        y = x * 2
    with v1_session(graph) as sess:
        if form == "missing-feed":
            check_raises(
                ctx,
                lambda: sess.run(y),
                tf.errors.InvalidArgumentError,
                r"You must feed a value for placeholder tensor",
            )
        else:
            check_raises(
                ctx,
                lambda: sess.run(y, {x: np.ones(3)}),
                ValueError,
                r"Cannot feed value of shape \(3,\) for Tensor",
            )
