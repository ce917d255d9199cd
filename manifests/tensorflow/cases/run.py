"""tf.compat.v1.Session.run: TF1 graphs built, executed and fetched (so they really ran)."""

import numpy as np
from tfhelp import ALL_DTYPES, v1_graph, v1_session

from portbench_runner.api import case, sweep


@case("matmul-feed", dtype="float32", rows=64)
@case("matmul-feed-float64", dtype="float64", rows=64)
@case("matmul-feed-large", dtype="float32", rows=4096, inner=256)
def run_matmul(ctx, dtype, rows, inner=32):
    import tensorflow as tf

    a = ctx.rng.standard_normal((rows, inner)).astype(dtype)
    b = ctx.rng.standard_normal((inner, 16)).astype(dtype)
    with v1_graph(ctx) as graph:
        x = tf.compat.v1.placeholder(getattr(tf, dtype), shape=(None, inner))
        product = tf.matmul(x, tf.constant(b))
    with v1_session(graph) as sess:
        out = ctx.measure(sess.run, product, feed_dict={x: a})
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(
        out, a.astype("float64") @ b.astype("float64"), rtol=tol, atol=tol * np.sqrt(inner)
    )


@case("variables-and-fetch-list")
def run_variables(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        counter = v1.Variable(5.0, dtype=tf.float32)
        bump = v1.assign_add(counter, 2.0)
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        # One run of the update: state changes, so time it once.
        out = ctx.measure(sess.run, [bump], warm=False)
        after = sess.run(counter)
    ctx.check_close(np.array(out[0]), 7.0, dtype="float32", what="fetched update")
    ctx.check_close(np.array(after), 7.0, dtype="float32", what="variable after run")


@case("empty-fetch-dict")
def run_empty(ctx):
    import tensorflow as tf

    with v1_graph(ctx) as graph:
        empty = tf.zeros((0, 4))
        total = tf.reduce_sum(empty, axis=0)
    with v1_session(graph) as sess:
        out = ctx.measure(sess.run, {"empty": empty, "total": total})
    ctx.check_equal(np.array(out["empty"].shape), np.array([0, 4]))
    ctx.check_close(out["total"], np.zeros(4), dtype="float32")


@case("while-loop")
def run_while(ctx):
    import tensorflow as tf

    with v1_graph(ctx) as graph:
        n = tf.compat.v1.placeholder(tf.int32, [])
        _, total = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), (0, 0))
    with v1_session(graph) as sess:
        out = ctx.measure(sess.run, total, {n: 1000})
    ctx.check_equal(np.int64(out), np.int64(sum(range(1000))))


@case("run-options-and-metadata")
def run_traced(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        y = tf.reduce_sum(tf.square(tf.range(10.0)))
    with v1_session(graph) as sess:
        options = v1.RunOptions(trace_level=v1.RunOptions.FULL_TRACE)
        metadata = v1.RunMetadata()
        out = ctx.measure(sess.run, y, options=options, run_metadata=metadata)
    ctx.check_close(np.float64(out), 285.0, dtype="float32")
    ctx.check(len(metadata.step_stats.dev_stats) > 0, "FULL_TRACE recorded no step stats", "other")


# Tensors of every dtype fed and fetched (a reverse: an op of every dtype); new names, so the
# cases above keep their ids.
@sweep("fetch-{dtype}-sweep", dtype=ALL_DTYPES)
def fetch_dtypes(ctx, dtype):
    import tensorflow as tf
    from tfhelp import draw, host_exact

    fed = host_exact(ctx, ctx.put(draw(ctx, (6, 3), dtype, -9, 9), dtype=dtype))
    with v1_graph(ctx) as graph:
        p = tf.compat.v1.placeholder(getattr(tf, dtype), shape=(None, 3))
        y = tf.reverse(p, [1])
    with v1_session(graph) as sess:
        out = ctx.measure(sess.run, y, feed_dict={p: fed})
    ctx.check_equal(out, fed[:, ::-1])


# The fetch structures run() returns in kind: a tuple, a namedtuple, a nested dict of lists,
# an op (None), a tensor named by string, and a feed keyed by tensor name.
@sweep(
    "fetch-{form}-sweep",
    form=["tuple", "namedtuple", "nested", "op-is-none", "by-name", "feed-by-name"],
)
def fetch_forms(ctx, form):
    import collections

    import tensorflow as tf

    Pair = collections.namedtuple("Pair", ["a", "b"])
    with v1_graph(ctx) as graph:
        x = tf.compat.v1.placeholder(tf.float32, [3], name="x")
        a = tf.identity(x * 2.0, name="double")
        b = tf.reduce_sum(x, name="total")
        noop = tf.no_op()
    fetches = {
        "tuple": (a, b),
        "namedtuple": Pair(a, b),
        "nested": {"k": [a, {"j": b}]},
        "op-is-none": [noop, b],
        "by-name": ["double:0", "total:0"],
        "feed-by-name": (a, b),
    }[form]
    value = np.array([1.0, 2.0, 4.0], dtype="float32")
    feed = {"x:0": value} if form == "feed-by-name" else {x: value}
    with v1_session(graph) as sess:
        out = ctx.measure(sess.run, fetches, feed_dict=feed)
    if form == "namedtuple":
        ctx.check(type(out) is Pair, f"namedtuple came back as {type(out).__name__}", "other")
    if form == "nested":
        out_a, out_b = out["k"][0], out["k"][1]["j"]
    elif form == "op-is-none":
        ctx.check(out[0] is None, f"an op fetched as {out[0]!r}", "other")
        out_a, out_b = value * 2.0, out[1]
    else:
        ctx.check(type(out) is type(fetches) or form == "by-name", f"{type(out).__name__}", "other")
        out_a, out_b = out[0], out[1]
    ctx.check_close(out_a, value.astype("float64") * 2.0, dtype="float32", what="double")
    ctx.check_close(np.float64(out_b), 7.0, dtype="float32", what="total")


# The study's other kind of path here: the documented errors of Session.run (a closed
# session, a fetch of None, a fetch that is no tensor, a feed key naming no tensor, a graph
# with nothing in it: exact type and message). New names; the cases above keep their ids.
@sweep(
    "error-{form}",
    form=["closed-session", "none-fetch", "int-fetch", "unknown-feed-key", "empty-graph"],
)
def run_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    with v1_graph(ctx) as graph:
        c = tf.constant(1.0)
    sess = v1_session(tf.Graph() if form == "empty-graph" else graph)
    if form == "closed-session":
        sess.close()
    call, exc, pattern = {
        "closed-session": (lambda: sess.run(c), RuntimeError, r"Attempted to use a closed Session"),
        "none-fetch": (
            lambda: sess.run(None),
            TypeError,
            r"Argument `fetch` = None has invalid type",
        ),
        "int-fetch": (
            lambda: sess.run(3),
            TypeError,
            r"Argument `fetch` = 3 has invalid type \"int\"",
        ),
        "unknown-feed-key": (
            lambda: sess.run(c, {"nope:0": 1.0}),
            TypeError,
            r"Cannot interpret feed_dict key as Tensor",
        ),
        "empty-graph": (lambda: sess.run(c), RuntimeError, r"The Session graph is empty"),
    }[form]
    try:
        check_raises(ctx, call, exc, pattern)
    finally:
        sess.close()
