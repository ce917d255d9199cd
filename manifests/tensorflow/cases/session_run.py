"""tf.compat.v1.Session.run: TF1 graphs built, executed and fetched (so they really ran)."""

import numpy as np

from portbench_runner.api import case




@case("matmul-feed")
@case("matmul-feed-float64", dtype="float64")
def run_matmul(ctx, dtype="float32"):
    import tensorflow as tf

    v1 = tf.compat.v1
    a = ctx.rng.standard_normal((64, 32)).astype(dtype)
    b = ctx.rng.standard_normal((32, 16)).astype(dtype)
    graph = tf.Graph()
    with graph.as_default(), tf.device(ctx.device):
        x = v1.placeholder(getattr(tf, dtype), shape=(None, 32))
        product = tf.matmul(x, tf.constant(b))
    config = v1.ConfigProto(allow_soft_placement=False)
    with v1.Session(graph=graph, config=config) as sess:
        out = ctx.measure(sess.run, product, feed_dict={x: a})
    ctx.check_close(out, a.astype("float64") @ b.astype("float64"), rtol=1e-4 if dtype == "float32" else 1e-10, atol=1e-4)


@case("variables-and-fetch-list")
def run_variables(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default(), tf.device(ctx.device):
        counter = v1.Variable(5.0, dtype=tf.float32)
        bump = v1.assign_add(counter, 2.0)
        doubled = counter * 2.0
        init = v1.global_variables_initializer()
    with v1.Session(graph=graph, config=v1.ConfigProto(allow_soft_placement=False)) as sess:
        sess.run(init)
        # One run of the update and a read: state changes, so time it once.
        out = ctx.measure(sess.run, [bump, doubled], warm=False)
    ctx.check_close(np.array(out[0]), 7.0, dtype="float32")


@case("empty-fetch-shape")
def run_empty(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default(), tf.device(ctx.device):
        empty = tf.zeros((0, 4))
        total = tf.reduce_sum(empty, axis=0)
    with v1.Session(graph=graph, config=v1.ConfigProto(allow_soft_placement=False)) as sess:
        out = ctx.measure(sess.run, {"empty": empty, "total": total})
    ctx.check_equal(np.array(out["empty"].shape), np.array([0, 4]))
    ctx.check_close(out["total"], np.zeros(4), dtype="float32")
