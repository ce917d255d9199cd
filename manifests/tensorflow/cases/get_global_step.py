"""tf.compat.v1.train.get_global_step: None until created; the created step; its value after training."""

import numpy as np
from tfhelp import boxed, raises, v1_graph, v1_session

from portbench_runner.api import case, sweep


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


# A global step made by hand in each integer dtype get_global_step accepts, found through
# the GLOBAL_STEP collection, or by its conventional name 'global_step:0' alone (the
# fallback for graphs that never registered it) as a reference and as a resource variable
# (TF2's default kind); the step it returns counts in a Session. New names.
@sweep(
    "{dtype}-{found}-sweep",
    dtype=["int32", "int64"],
    found=["collection", "by-name-ref", "by-name-resource"],
)
def step_dtypes(ctx, dtype, found):
    import tensorflow as tf

    v1 = tf.compat.v1
    keys = [v1.GraphKeys.GLOBAL_VARIABLES]
    if found == "collection":
        keys.append(v1.GraphKeys.GLOBAL_STEP)
    with v1_graph(ctx) as graph:
        step = v1.Variable(
            5,
            dtype=getattr(tf, dtype),
            name="global_step",
            trainable=False,
            collections=keys,
            use_resource=found != "by-name-ref",
        )
        out = ctx.measure(boxed(v1.train.get_global_step)).value
        bump = v1.assign_add(out, 2) if out is not None else None
        init = v1.global_variables_initializer()
    ctx.check(out is not None, f"the {dtype} step was not found ({found})", "other")
    ctx.check(out.dtype.base_dtype.name == dtype, f"step dtype {out.dtype}", "type")
    with v1_session(graph) as sess:
        sess.run(init)
        sess.run(bump)
        value = sess.run(step)
    ctx.check_equal(np.asarray(value), np.asarray(7, dtype=dtype))


@case("float-step-raises")
def float_step(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        v1.Variable(
            0.0,
            name="global_step",
            trainable=False,
            collections=[v1.GraphKeys.GLOBAL_VARIABLES, v1.GraphKeys.GLOBAL_STEP],
        )
        out = ctx.measure(raises(v1.train.get_global_step, TypeError))
    ctx.check(out == "TypeError", f"a float32 global step raised {out}", "type")


# The study's other kinds of paths: the documented error for a global step of a float dtype
# (exact type and message), and checkpoint and restore of the step (saved with Saver after
# training steps; in a fresh session the restored step is what get_global_step reads). New
# names; the cases above keep their ids.
@case("error-float-step")
def global_step_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    v1 = tf.compat.v1

    def lookup():
        with v1_graph(ctx):
            v1.Variable(
                1.0,
                name="global_step",
                collections=[v1.GraphKeys.GLOBAL_VARIABLES, v1.GraphKeys.GLOBAL_STEP],
            )
            return v1.train.get_global_step()

    check_raises(ctx, lookup, TypeError, r"Existing \"global_step\" does not have integer type")


@case("checkpoint-restored-step")
def global_step_checkpoint(ctx):
    import os
    import tempfile

    import tensorflow as tf
    from tfhelp import v1_session

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        step = v1.train.create_global_step()
        bump = step.assign_add(1)
        init = v1.global_variables_initializer()
        saver = v1.train.Saver()
    with v1_session(graph) as sess, tempfile.TemporaryDirectory() as folder:
        sess.run(init)
        for _ in range(5):
            sess.run(bump)
        path = saver.save(sess, os.path.join(folder, "model"))
        sess.run(init)

        def restore_and_read():
            saver.restore(sess, path)
            with graph.as_default():
                found = v1.train.get_global_step()
            return sess.run(found)

        out = ctx.measure(restore_and_read, warm=False)
    ctx.check_equal(out, np.int64(5))
