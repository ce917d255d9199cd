"""tf.Graph.as_default: ops created in the scope join that graph; scopes nest and restore; graphs run.

The study timed only the construction of the context manager; these cases enter it.
"""

import numpy as np
from tfhelp import v1_session

from portbench_runner.api import case


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
