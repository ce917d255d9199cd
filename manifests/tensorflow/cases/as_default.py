"""tf.Graph.as_default: ops created in the scope join that graph; scopes nest and restore; graphs run.

The study timed only the construction of the context manager; these cases enter it.
"""

import numpy as np
from tfhelp import EVERY_DTYPE, STRINGS, v1_session

from portbench_runner.api import case, sweep


@case("ops-join-graph")
def ops_join(ctx):
    import tensorflow as tf

    graph = tf.Graph()

    def build():
        with graph.as_default():
            c = tf.constant(1.0, name="c")
            return c.graph is graph and tf.compat.v1.get_default_graph() is graph

    out = ctx.measure(build)
    ctx.check(out is True, "an op made inside as_default() is not in that graph", "other")
    ctx.check(tf.executing_eagerly(), "eager execution did not come back after the scope", "other")


@case("nested-scopes-restore")
def nested(ctx):
    import tensorflow as tf

    outer, inner = tf.Graph(), tf.Graph()

    def nest():
        with outer.as_default():
            with inner.as_default():
                in_inner = tf.compat.v1.get_default_graph() is inner
            back = tf.compat.v1.get_default_graph() is outer
        return in_inner, back

    out = ctx.measure(nest)
    ctx.check(out == (True, True), f"(inner default, outer restored) = {out}", "other")


@case("graph-executes-in-session")
def executes(ctx):
    import tensorflow as tf

    graph = tf.Graph()

    def build_and_run():
        with graph.as_default(), tf.device(ctx.device):
            x = tf.constant(np.arange(6.0).reshape(2, 3))
            y = tf.reduce_sum(x * x, axis=1)
        with v1_session(graph) as sess:
            return sess.run(y)

    out = ctx.measure(build_and_run, warm=False)
    ctx.check_close(out, np.array([5.0, 50.0]), dtype="float64")


@case("collections-are-per-graph")
def collections(ctx):
    import tensorflow as tf

    g1, g2 = tf.Graph(), tf.Graph()

    def fill():
        with g1.as_default():
            tf.compat.v1.add_to_collection("portbench", 1)
        with g2.as_default():
            tf.compat.v1.add_to_collection("portbench", 2)
        return g1.get_collection("portbench"), g2.get_collection("portbench")

    out = ctx.measure(fill, warm=False)
    ctx.check(out == ([1], [2]), f"collections {out}", "other")


# Ops of every dtype (and strings) made inside as_default() join that graph and run in its
# Session, on the case's device; as_default() entered from eager code and from inside a
# tf.function (whose own FuncGraph is the default there). New names.
@sweep("{dtype}-from-{caller}-sweep", dtype=EVERY_DTYPE + STRINGS, caller=["eager", "function"])
def dtypes(ctx, dtype, caller):
    import tensorflow as tf
    from tfhelp import draw_any

    if dtype == "string":
        x = np.array([b"a", b"bc", b""], dtype=object)
    else:
        x = draw_any(ctx, (3,), dtype)
    graph = tf.Graph()
    built = []

    def build():
        with graph.as_default(), tf.device(ctx.device):
            c = tf.constant(x, dtype=getattr(tf, dtype))
            y = tf.reverse(c, axis=[0])
            built.append((y, tf.compat.v1.get_default_graph() is graph))
        return tf.constant(0)

    fn = build if caller == "eager" else tf.function(build)
    ctx.measure(fn, warm=False)
    y, was_default = built[0]
    ctx.check(was_default and y.graph is graph, "the op is not in the entered graph", "other")
    with v1_session(graph) as sess:
        got = np.asarray(sess.run(y))
    want = x[::-1]
    ctx.check_equal(got if dtype == "string" else got.astype(want.dtype), want)


@case("reentered-graph-keeps-ops")
def reentered(ctx):
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        tf.constant(1.0, name="first")

    def again():
        with graph.as_default():
            tf.constant(2.0, name="second")
            return [op.name for op in graph.get_operations()]

    out = ctx.measure(again, warm=False)
    ctx.check(out == ["first", "second"], f"operations {out}", "other")


# The study's other kind of path here: the documented error for combining tensors of two
# graphs (exact type and message). New name; the cases above keep their ids.
@case("error-tensors-of-two-graphs")
def as_default_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    first = tf.Graph()
    with first.as_default():
        a = tf.constant(1.0)

    def combine():
        second = tf.Graph()
        with second.as_default():
            return a + tf.constant(2.0)

    check_raises(ctx, combine, ValueError, r"must be from the same graph")
