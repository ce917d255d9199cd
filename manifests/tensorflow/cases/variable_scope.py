"""tf.compat.v1.variable_scope: name prefixes, reuse, AUTO_REUSE, scope initializers, nesting."""

import numpy as np
from tfhelp import boxed, raises, v1_graph, v1_session

from portbench_runner.api import case


@case("names-prefixed")
def names(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):

        def build():
            with v1.variable_scope("enc"), v1.variable_scope("layer1"):
                return v1.get_variable("w", [2, 3])

        w = ctx.measure(boxed(build), warm=False).value
    ctx.check(w.name == "enc/layer1/w:0", f"variable name {w.name}", "other")


@case("reuse-returns-same")
def reuse(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        with v1.variable_scope("s"):
            first = v1.get_variable("v", [3])

        def again():
            with v1.variable_scope("s", reuse=True):
                return v1.get_variable("v", [3])

        second = ctx.measure(boxed(again)).value
    ctx.check(second is first, "reuse=True made a new variable", "other")


@case("auto-reuse")
def auto_reuse(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:

        def shared():
            with v1.variable_scope("shared", reuse=v1.AUTO_REUSE):
                return v1.get_variable("b", [1])

        a = ctx.measure(boxed(shared)).value
        b = shared()
        count = len(graph.get_collection(v1.GraphKeys.GLOBAL_VARIABLES))
    ctx.check(a is b and count == 1, f"AUTO_REUSE made {count} variables", "other")


@case("duplicate-without-reuse-raises")
def duplicate(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        with v1.variable_scope("d"):
            v1.get_variable("v", [1])

        def twice():
            with v1.variable_scope("d"):
                v1.get_variable("v", [1])

        out = ctx.measure(raises(twice, ValueError))
    ctx.check(out == "ValueError", f"creating d/v twice raised {out}", "other")


@case("scope-initializer-and-dtype")
def initializer(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:

        def build():
            with v1.variable_scope(
                "init", initializer=v1.constant_initializer(0.25), dtype=tf.float64
            ):
                return v1.get_variable("v", [2, 2])

        v = ctx.measure(boxed(build), warm=False).value
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        out = sess.run(v)
    ctx.check(v.dtype.base_dtype == tf.float64, f"dtype {v.dtype}", "type")
    ctx.check_equal(out, np.full((2, 2), 0.25))
