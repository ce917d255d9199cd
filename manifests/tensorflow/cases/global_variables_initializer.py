"""tf.compat.v1.global_variables_initializer: one op that runs every global variable's initializer."""

import numpy as np
from tfhelp import EVERY_DTYPE, boxed, raises, v1_graph, v1_session

from portbench_runner.api import case, sweep


@case("mixed-initializers")
def mixed(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    value = ctx.rng.standard_normal((3, 4)).astype("float32")
    with v1_graph(ctx) as graph:
        a = v1.Variable(value)
        b = v1.get_variable("b", [5], initializer=v1.constant_initializer(2.5))
        c = v1.get_variable("c", [2, 2], dtype=tf.float64, initializer=v1.zeros_initializer())
        d = v1.Variable(7, dtype=tf.int32, trainable=False)
        init = ctx.measure(boxed(v1.global_variables_initializer), warm=False).value
    with v1_session(graph) as sess:
        sess.run(init)
        got = sess.run([a, b, c, d])
    ctx.check_equal(got[0], value)
    ctx.check_equal(got[1], np.full(5, 2.5, dtype="float32"))
    ctx.check_equal(got[2], np.zeros((2, 2)))
    ctx.check_equal(np.int32(got[3]), np.int32(7))


@case("run-initializes-large")
def run_large(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        v = v1.get_variable("big", [1000, 1000], initializer=v1.ones_initializer())
        init = v1.global_variables_initializer()
        total = tf.reduce_sum(v)
    with v1_session(graph) as sess:
        ctx.measure(sess.run, init)
        out = sess.run(total)
    ctx.check_close(np.float64(out), 1e6, dtype="float32")


@case("no-variables-is-noop")
def empty(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        out = ctx.measure(sess.run, init)
    ctx.check(out is None, f"running the no-op initializer returned {out!r}", "other")


@case("reinitializes-after-change")
def reinit(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        v = v1.Variable(np.array([1.0, 2.0]))
        bump = v1.assign_add(v, [10.0, 10.0])
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        sess.run(bump)
        ctx.measure(sess.run, init, warm=False)
        out = sess.run(v)
    ctx.check_equal(out, np.array([1.0, 2.0]))


@case("uninitialized-read-raises")
def uninitialized(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        v = v1.Variable(np.array([1.0]))
        v1.global_variables_initializer()
    with v1_session(graph) as sess:
        out = ctx.measure(raises(lambda: sess.run(v), tf.errors.FailedPreconditionError))
    ctx.check(
        out == "FailedPreconditionError",
        f"reading before the initializer ran raised {out}",
        "other",
    )


# A variable of every dtype, through each way TF1 code makes one: a resource Variable,
# a reference (pre-resource) Variable and get_variable with a tensor initializer; the
# measured call is running the initializer op, then the value is read back. New names.
@sweep("{dtype}-{form}-sweep", dtype=EVERY_DTYPE, form=["resource", "ref", "get_variable"])
def init_dtypes(ctx, dtype, form):
    import tensorflow as tf
    from tfhelp import draw_any

    v1 = tf.compat.v1
    x = draw_any(ctx, (2, 3), dtype)
    with v1_graph(ctx) as graph:
        value = tf.constant(x, dtype=getattr(tf, dtype))
        if form == "get_variable":
            var = v1.get_variable("v", initializer=value)
        else:
            var = v1.Variable(value, use_resource=form == "resource")
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        ctx.measure(sess.run, init, warm=False)
        got = np.asarray(sess.run(var))
    ctx.check_equal(got.astype(x.dtype), x)


# The study's other kinds of paths: the documented error for reading a variable its
# initializer has not run for (exact type and message), and checkpoint and restore around
# the initializer (values changed after it are saved; the initializer resets them; a Saver
# restore brings the saved values back). New names; the cases above keep their ids.
@case("error-uninitialized-read")
def initializer_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        v = v1.Variable(1.0)
    with v1_session(graph) as sess:
        check_raises(ctx, lambda: sess.run(v), tf.errors.FailedPreconditionError, r"uninitialized")


@case("checkpoint-restore-after-init")
def initializer_checkpoint(ctx):
    import os
    import tempfile

    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        a = v1.Variable(np.arange(4, dtype="float32"))
        b = v1.get_variable("b", initializer=np.full((2, 2), 3.0, dtype="float64"))
        change = tf.group(a.assign(a * 10), b.assign(-b))
        init = v1.global_variables_initializer()
        saver = v1.train.Saver()
    with v1_session(graph) as sess, tempfile.TemporaryDirectory() as folder:
        sess.run(init)
        sess.run(change)
        path = saver.save(sess, os.path.join(folder, "model"))
        sess.run(init)
        reset = sess.run([a, b])

        def restore():
            saver.restore(sess, path)
            return sess.run([a, b])

        out = ctx.measure(restore, warm=False)
    ctx.check_equal(reset[0], np.arange(4, dtype="float32"))
    ctx.check_equal(out[0], np.arange(4, dtype="float32") * 10)
    ctx.check_equal(out[1], np.full((2, 2), -3.0))
