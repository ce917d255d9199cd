"""tf.Tensor.eval: a TF1 graph tensor evaluated in a (default or explicit) Session, with feeds."""

import numpy as np
from tfhelp import EVERY_DTYPE, raises, v1_graph, v1_session

from portbench_runner.api import case, sweep


@case("float32-explicit-session", dtype="float32")
@case("float64-explicit-session", dtype="float64")
@case("float32-large", dtype="float32", shape=(1000, 1000))
def explicit(ctx, dtype, shape=(16, 16)):
    import tensorflow as tf

    a = ctx.rng.standard_normal(shape).astype(dtype)
    with v1_graph(ctx) as graph:
        t = tf.reduce_sum(tf.constant(a) * 2.0, axis=0)
    with v1_session(graph) as sess:
        out = ctx.measure(t.eval, session=sess)
    tol = {"float32": 1e-4, "float64": 1e-10}[dtype]
    ctx.check_close(
        out, (a.astype("float64") * 2.0).sum(axis=0), rtol=tol, atol=tol * np.sqrt(shape[0])
    )


@case("default-session-feed")
def feed(ctx):
    import tensorflow as tf

    with v1_graph(ctx) as graph:
        p = tf.compat.v1.placeholder(tf.int32, [None])
        t = p * p + 1
    with v1_session(graph) as sess, sess.as_default():
        out = ctx.measure(t.eval, feed_dict={p: [1, 2, 3]})
    ctx.check_equal(out, np.array([2, 5, 10], dtype="int32"))


@case("variable-after-init")
def variable(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        v = v1.Variable(np.array([1.5, 2.5], dtype="float32"))
        t = v * 4.0
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        out = ctx.measure(t.eval, session=sess)
    ctx.check_equal(out, np.array([6.0, 10.0], dtype="float32"))


@case("eager-tensor-raises")
def eager(ctx):

    t = ctx.put(np.array([1.0]))
    out = ctx.measure(raises(t.eval, NotImplementedError, AttributeError, RuntimeError))
    ctx.check(out is not None, "eval() of an eager tensor did not raise", "other")


# A graph tensor of every dtype evaluated in a Session: a constant (folded or not, the
# graph holds the values) and a placeholder fed through feed_dict in the default session;
# the tensor is a reversal, an op every dtype has a CPU kernel for. New names.
@sweep("{dtype}-{form}-sweep", dtype=EVERY_DTYPE, form=["constant", "feed"])
def eval_dtypes(ctx, dtype, form):
    import tensorflow as tf
    from tfhelp import draw_any

    v1 = tf.compat.v1
    x = draw_any(ctx, (3, 5), dtype)
    with v1_graph(ctx) as graph:
        if form == "feed":
            source = v1.placeholder(getattr(tf, dtype), shape=(None, 5))
        elif dtype == "bfloat16":
            source = tf.constant(x, dtype=tf.bfloat16)
        else:
            source = tf.constant(x)
        t = tf.reverse(source, axis=[1])
    feed = {source: x} if form == "feed" else None
    with v1_session(graph) as sess, sess.as_default():
        out = ctx.measure(t.eval, feed_dict=feed)
    got = np.asarray(out)
    ctx.check(
        got.dtype.name == dtype,  # bfloat16 comes back as ml_dtypes.bfloat16
        f"numpy dtype {got.dtype}",
        "type",
    )
    ctx.check_equal(got.astype(x.dtype), x[:, ::-1])


# The study's other kind of path here: the documented errors (eval of an eager tensor, eval
# with no default session: exact type and message). New names; the cases above keep their
# ids.
@sweep("error-{form}", form=["eager-tensor", "no-default-session"])
def eval_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "eager-tensor":
        t = tf.constant(1.0)
        check_raises(
            ctx,
            t.eval,
            NotImplementedError,
            r"eval is not supported when eager execution is enabled",
        )
    else:
        with v1_graph(ctx):
            t = tf.constant(1.0)
        check_raises(
            ctx,
            t.eval,
            ValueError,
            r"Cannot evaluate tensor using `eval\(\)`: No default session is registered",
        )
