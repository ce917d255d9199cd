"""tf.compat.v1.metrics.accuracy: a TF1 streaming metric, run in a Session.

Each case builds the metric in a graph, initializes its local (count/total) variables,
times one ``sess.run`` of the update op and checks the accumulated value.
"""

import numpy as np
from tfhelp import EVERY_DTYPE, REAL_FLOATS, raises, v1_graph, v1_session

from portbench_runner.api import case, sweep


def _build(ctx, labels, predictions, weights=None):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        w = None if weights is None else tf.constant(weights)
        value, update = v1.metrics.accuracy(
            tf.constant(labels), tf.constant(predictions), weights=w
        )
        init = v1.local_variables_initializer()
    return graph, value, update, init


@case("int64-labels", dtype="int64", n=100)
@case("int32-labels", dtype="int32", n=1000)
@case("bool-labels", dtype="bool", n=64)
@case("float32-labels", dtype="float32", n=256)
@case("int64-large", dtype="int64", n=1_000_000)
def one_batch(ctx, dtype, n):
    labels = ctx.rng.integers(0, 3, size=n)
    preds = np.where(ctx.rng.random(n) < 0.7, labels, (labels + 1) % 3)
    if dtype == "bool":
        labels, preds = labels > 0, preds > 0
    labels, preds = labels.astype(dtype), preds.astype(dtype)
    graph, value, update, init = _build(ctx, labels, preds)
    with v1_session(graph) as sess:
        sess.run(init)
        out = ctx.measure(sess.run, update, warm=False)
        final = sess.run(value)
    expected = float(np.mean(labels == preds))
    ctx.check_close(np.float64(out), expected, rtol=1e-6, atol=1e-7, what="update op")
    ctx.check_close(np.float64(final), expected, rtol=1e-6, atol=1e-7, what="metric value")


@case("weighted")
def weighted(ctx):
    labels = np.array([1, 2, 3, 4], dtype="int32")
    preds = np.array([1, 0, 3, 0], dtype="int32")
    weights = np.array([1.0, 2.0, 3.0, 4.0], dtype="float32")
    graph, _value, update, init = _build(ctx, labels, preds, weights)
    with v1_session(graph) as sess:
        sess.run(init)
        out = ctx.measure(sess.run, update, warm=False)
    ctx.check_close(np.float64(out), 4.0 / 10.0, dtype="float32")


@case("streams-over-batches")
def streaming(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        labels = v1.placeholder(tf.int32, [None])
        preds = v1.placeholder(tf.int32, [None])
        value, update = v1.metrics.accuracy(labels, preds)
        init = v1.local_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        sess.run(update, {labels: [1, 1, 1, 1], preds: [1, 1, 1, 1]})  # 4 of 4
        out = ctx.measure(sess.run, update, {labels: [0, 0], preds: [1, 1]}, warm=False)  # 0 of 2
        final = sess.run(value)
    ctx.check_close(np.float64(out), 4.0 / 6.0, dtype="float32", what="update op")
    ctx.check_close(np.float64(final), 4.0 / 6.0, dtype="float32", what="metric value")


@case("eager-raises")
def eager(ctx):
    import tensorflow as tf

    call = raises(
        lambda: tf.compat.v1.metrics.accuracy(tf.constant([1]), tf.constant([1])), RuntimeError
    )
    out = ctx.measure(call)
    ctx.check(
        out == "RuntimeError",
        f"the TF1 metric in eager mode raised {out}, documented RuntimeError",
        "other",
    )


# Labels and predictions of every dtype (accuracy compares them with equal, which every
# dtype has a CPU kernel for), unweighted; new names, so the cases above keep their ids.
@sweep("{dtype}-labels-sweep", dtype=EVERY_DTYPE)
def labels_dtypes(ctx, dtype):
    from tfhelp import draw_any

    labels = draw_any(ctx, (200,), dtype, 0, 3)
    preds = draw_any(ctx, (200,), dtype, 0, 3)
    graph, value, update, init = _build(ctx, labels, preds)
    with v1_session(graph) as sess:
        sess.run(init)
        out = ctx.measure(sess.run, update, warm=False)
        final = sess.run(value)
    expected = float(np.mean(labels == preds))
    ctx.check_close(np.float64(out), expected, rtol=1e-6, atol=1e-7, what="update op")
    ctx.check_close(np.float64(final), expected, rtol=1e-6, atol=1e-7, what="metric value")


# Weights of each float dtype: the weighted mean of the hits (the metric's total and count
# are float32 whatever the weights' dtype).
@sweep("weights-{dtype}-sweep", dtype=REAL_FLOATS)
def weights_dtypes(ctx, dtype):
    import tensorflow as tf

    v1 = tf.compat.v1
    labels = ctx.rng.integers(0, 3, size=64).astype("int64")
    preds = ctx.rng.integers(0, 3, size=64).astype("int64")
    w = (ctx.rng.integers(0, 8, size=64) / 4).astype("float32")  # quarters: exact in bfloat16
    with v1_graph(ctx) as graph:
        weights = tf.cast(tf.constant(w), getattr(tf, dtype))
        _value, update = v1.metrics.accuracy(
            tf.constant(labels), tf.constant(preds), weights=weights
        )
        init = v1.local_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        out = ctx.measure(sess.run, update, warm=False)
    hits = (labels == preds).astype("float64")
    ctx.check_close(np.float64(out), float((hits * w).sum() / w.sum()), rtol=1e-6, atol=1e-7)


@case("empty-batch-is-zero")
def empty(ctx):
    labels = np.zeros((0,), dtype="int32")
    graph, _value, update, init = _build(ctx, labels, labels)
    with v1_session(graph) as sess:
        sess.run(init)
        out = ctx.measure(sess.run, update, warm=False)
    # No examples: total and count stay 0 and the metric is defined as 0 (div_no_nan).
    ctx.check_close(np.float64(out), 0.0, rtol=0.0, atol=0.0)


# The study's other kinds of paths: the documented errors (labels and predictions of
# different shapes; eager execution, where the TF1 metric refuses to run: exact type and
# message), and the full grid of weights (none, ones, a vector) x updates (one batch, two
# batches streamed). New names; the cases above keep their ids.
@sweep("error-{form}", form=["shapes-differ", "eager"])
def accuracy_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    v1 = tf.compat.v1
    if form == "shapes-differ":

        def build():
            with v1_graph(ctx):
                v1.metrics.accuracy(tf.ones(3), tf.ones(4))

        check_raises(ctx, build, ValueError, r"Shapes \(4,\) and \(3,\) are incompatible")
    else:
        check_raises(
            ctx,
            lambda: v1.metrics.accuracy(tf.ones(3), tf.ones(3)),
            RuntimeError,
            r"tf\.metrics\.accuracy is not supported when eager execution is enabled",
        )


@sweep(
    "flags-weights-{weights}-{batches}-sweep",
    weights=["none", "ones", "vector"],
    batches=["one-batch", "two-batches"],
)
def accuracy_flags(ctx, weights, batches):
    import tensorflow as tf

    v1 = tf.compat.v1
    labels = np.array([1, 0, 2, 2, 1, 0], dtype="int64")
    preds = np.array([1, 1, 2, 0, 1, 0], dtype="int64")
    w = {
        "none": None,
        "ones": np.ones(6, dtype="float32"),
        "vector": np.array([0.5, 2.0, 1.0, 3.0, 0.0, 1.0], dtype="float32"),
    }[weights]
    with v1_graph(ctx) as graph:
        lab = v1.placeholder(tf.int64, (None,))
        pre = v1.placeholder(tf.int64, (None,))
        wgt = None if w is None else v1.placeholder(tf.float32, (None,))
        value, update = v1.metrics.accuracy(lab, pre, weights=wgt)
        init = v1.local_variables_initializer()
    halves = [slice(0, 6)] if batches == "one-batch" else [slice(0, 3), slice(3, 6)]
    with v1_session(graph) as sess:
        sess.run(init)
        for part in halves[:-1]:
            sess.run(
                update,
                {lab: labels[part], pre: preds[part], **({} if w is None else {wgt: w[part]})},
            )
        last = halves[-1]
        ctx.measure(
            sess.run,
            update,
            {lab: labels[last], pre: preds[last], **({} if w is None else {wgt: w[last]})},
            warm=False,
        )
        out = sess.run(value)
    correct = (labels == preds).astype("float64")
    weight = np.ones(6) if w is None else w.astype("float64")
    ctx.check_close(out, (correct * weight).sum() / weight.sum(), dtype="float32")
