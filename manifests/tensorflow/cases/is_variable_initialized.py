"""tf.compat.v1.is_variable_initialized: False before and True after a variable's initializer runs."""

import numpy as np
from tfhelp import ALL_DTYPES, v1_graph, v1_session

from portbench_runner.api import case, sweep


@case("resource-before-and-after", use_resource=True)
@case("ref-before-and-after", use_resource=False)
def before_after(ctx, use_resource):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        v = v1.get_variable("v", [3], use_resource=use_resource, initializer=v1.ones_initializer())
        flag = v1.is_variable_initialized(v)
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        before = sess.run(flag)
        sess.run(init)
        after = ctx.measure(sess.run, flag)
    ctx.check(not before and bool(after), f"before={before}, after={after}", "other")


@case("partial-initialization")
def partial(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        a = v1.Variable(np.zeros(2))
        b = v1.Variable(np.zeros(2))
        flags = [v1.is_variable_initialized(a), v1.is_variable_initialized(b)]
    with v1_session(graph) as sess:
        sess.run(a.initializer)
        out = ctx.measure(sess.run, flags)
    ctx.check([bool(x) for x in out] == [True, False], f"flags {out}", "other")


@case("many-variables")
def many(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        variables = [v1.Variable(np.float32(i)) for i in range(200)]
        flags = tf.stack([v1.is_variable_initialized(v) for v in variables])
    with v1_session(graph) as sess:
        for v in variables[::2]:
            sess.run(v.initializer)
        out = ctx.measure(sess.run, flags)
    ctx.check_equal(out, np.arange(200) % 2 == 0)


# A variable of every dtype, resource and reference (TF1 ref) variables: False before the
# initializer, True after; new names, so the cases above keep their ids.
@sweep("{dtype}-{kind}-sweep", dtype=ALL_DTYPES, kind=["resource", "ref"])
def dtypes(ctx, dtype, kind):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        v = v1.get_variable(
            "v",
            [2, 3],
            dtype=getattr(tf, dtype),
            use_resource=kind == "resource",
            initializer=v1.zeros_initializer(),
        )
        flag = v1.is_variable_initialized(v)
    with v1_session(graph) as sess:
        before = ctx.measure(sess.run, flag)
        sess.run(v.initializer)
        after = sess.run(flag)
    ctx.check(np.asarray(before).dtype == bool, f"flag dtype {np.asarray(before).dtype}", "type")
    ctx.check(not before and bool(after), f"before={before}, after={after}", "other")


# Inside a tf.function (TF2 code checking a TF1-style resource variable), and on a variable
# created eagerly (always initialized).
@case("eager-variable-is-initialized")
def eager(ctx):
    import tensorflow as tf

    v = tf.Variable(np.zeros(3, dtype="float32"))
    out = ctx.measure(tf.compat.v1.is_variable_initialized, v)
    ctx.check(bool(ctx.to_numpy(out)), f"an eager variable reports {out}", "other")


@case("in-tf-function")
def in_function(ctx):
    import tensorflow as tf

    v = tf.Variable(np.ones(2, dtype="float64"))
    fn = ctx.graph(lambda: tf.compat.v1.is_variable_initialized(v))
    out = ctx.measure(fn)
    ctx.check(bool(ctx.to_numpy(out)), f"inside tf.function: {out}", "other")


# The study's other kind of path here: checkpoint and restore as the other way to initialize
# a variable: before a Saver restore the variable is not initialized, after it it is (no
# initializer run), for resource and ref variables. It answers any variable with a bool, so
# it has no documented error path. New names; the cases above keep their ids.
@sweep("checkpoint-restore-initializes-{kind}-sweep", kind=["resource", "ref"])
def initialized_by_restore(ctx, kind):
    import os
    import tempfile

    import tensorflow as tf

    v1 = tf.compat.v1
    with tempfile.TemporaryDirectory() as folder:
        with v1_graph(ctx) as graph:
            v1.get_variable("v", initializer=np.arange(3.0), use_resource=kind == "resource")
            init = v1.global_variables_initializer()
            saver = v1.train.Saver()
        with v1_session(graph) as sess:
            sess.run(init)
            path = saver.save(sess, os.path.join(folder, "model"))
        with v1_graph(ctx) as fresh:
            w = v1.get_variable("v", shape=(3,), dtype=tf.float64, use_resource=kind == "resource")
            flag = v1.is_variable_initialized(w)
            loader = v1.train.Saver()
        with v1_session(fresh) as sess:
            before = sess.run(flag)
            loader.restore(sess, path)
            after = ctx.measure(sess.run, flag)
            value = sess.run(w)
    ctx.check(
        not before and bool(after),
        f"initialized before/after the restore: {before}/{after}",
        "other",
    )
    ctx.check_equal(value, np.arange(3.0))
