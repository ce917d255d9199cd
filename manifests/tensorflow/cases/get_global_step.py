"""tf.compat.v1.train.get_global_step: None until created; the created step; its value after training."""

import numpy as np
from tfhelp import boxed, v1_graph, v1_session

from portbench_runner.api import case


@case("none-before-creation")
def none(ctx):
    import tensorflow as tf

    with v1_graph(ctx):
        out = ctx.measure(boxed(tf.compat.v1.train.get_global_step)).value
    ctx.check(out is None, f"an empty graph has global step {out}", "other")


@case("returns-created-step")
def created(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        step = v1.train.create_global_step()
        out = ctx.measure(boxed(v1.train.get_global_step)).value
    ctx.check(out is step and out.dtype.base_dtype == tf.int64, f"got {out}", "other")


@case("counts-optimizer-steps")
def counts(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        v1.train.create_global_step()
        w = v1.Variable(1.0)
        train = v1.train.GradientDescentOptimizer(0.1).minimize(
            w * w, global_step=v1.train.get_global_step()
        )
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        for _ in range(3):
            sess.run(train)
        with graph.as_default():
            out = ctx.measure(lambda: sess.run(v1.train.get_global_step()), warm=False)
    ctx.check_equal(np.int64(out), np.int64(3))


@case("explicit-graph-argument")
def explicit(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        step = v1.train.get_or_create_global_step()
    out = ctx.measure(boxed(v1.train.get_global_step), graph).value
    ctx.check(out is step, f"get_global_step(graph) gave {out}", "other")
