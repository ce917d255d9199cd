"""tf.train.list_variables: (name, shape) of every tensor in a checkpoint, from a file prefix or a folder."""

import os
import tempfile

import numpy as np
from tfhelp import raises, v1_graph, v1_session

from portbench_runner.api import case


def _tf2_checkpoint(ctx):
    import tensorflow as tf

    folder = tempfile.mkdtemp(prefix="portbench-ckpt-")
    ckpt = tf.train.Checkpoint(
        w=tf.Variable(np.zeros((3, 4), dtype="float32")),
        b=tf.Variable(np.zeros(4)),
        step=tf.Variable(5, dtype=tf.int64),
    )
    return folder, ckpt.save(os.path.join(folder, "ckpt"))


@case("tf2-checkpoint-prefix")
def tf2_prefix(ctx):
    import tensorflow as tf

    _, prefix = _tf2_checkpoint(ctx)
    out = dict(ctx.measure(tf.train.list_variables, prefix))
    want = {
        "w/.ATTRIBUTES/VARIABLE_VALUE": [3, 4],
        "b/.ATTRIBUTES/VARIABLE_VALUE": [4],
        "step/.ATTRIBUTES/VARIABLE_VALUE": [],
    }
    for name, shape in want.items():
        ctx.check(out.get(name) == shape, f"{name}: {out.get(name)} (all: {sorted(out)})", "other")


@case("folder-uses-latest")
def folder(ctx):
    import tensorflow as tf

    directory, _ = _tf2_checkpoint(ctx)
    out = dict(ctx.measure(tf.train.list_variables, directory))
    ctx.check(
        out.get("w/.ATTRIBUTES/VARIABLE_VALUE") == [3, 4],
        f"listing of the folder: {sorted(out)}",
        "other",
    )


@case("tf1-saver-names")
def tf1_names(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    folder = tempfile.mkdtemp(prefix="portbench-ckpt-")
    with v1_graph(ctx) as graph:
        with v1.variable_scope("layer"):
            v1.get_variable("kernel", [5, 2])
            v1.get_variable("bias", [2])
        saver = v1.train.Saver()
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        prefix = saver.save(sess, os.path.join(folder, "model"))
    out = ctx.measure(tf.train.list_variables, prefix)
    ctx.check(out == [("layer/bias", [2]), ("layer/kernel", [5, 2])], f"listed {out}", "other")


@case("missing-path-raises")
def missing(ctx):
    import tensorflow as tf

    path = os.path.join(tempfile.mkdtemp(prefix="portbench-ckpt-"), "none")
    out = ctx.measure(
        raises(lambda: tf.train.list_variables(path), ValueError, tf.errors.NotFoundError)
    )
    ctx.check(out is not None, "listing a missing checkpoint raised nothing", "other")
