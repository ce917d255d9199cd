"""tf.compat.v1.placeholder: fed values flow through a TF1 graph run in a Session; shapes and errors."""

import numpy as np
from tfhelp import boxed, raises, v1_graph, v1_session

from portbench_runner.api import case


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
