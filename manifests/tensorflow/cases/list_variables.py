"""tf.train.list_variables: (name, shape) of every tensor in a checkpoint, from a file prefix or a folder."""

import os
import tempfile

import numpy as np
from tfhelp import ALL_DTYPES, raises, v1_graph, v1_session

from portbench_runner.api import case, sweep


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


# A checkpoint holding a variable of every dtype, of several shapes (scalar, empty, rank 3):
# each is listed with its shape; new names, so the cases above keep their ids.
@sweep("{dtype}-sweep", dtype=ALL_DTYPES)
def dtypes(ctx, dtype):
    import tensorflow as tf

    tdt = getattr(tf, dtype)
    ckpt = tf.train.Checkpoint(
        scalar=tf.Variable(tf.zeros((), tdt)),
        empty=tf.Variable(tf.zeros((0, 3), tdt)),
        cube=tf.Variable(tf.zeros((2, 3, 4), tdt)),
    )
    prefix = ckpt.save(os.path.join(tempfile.mkdtemp(prefix="portbench-ckpt-"), "c"))
    out = dict(ctx.measure(tf.train.list_variables, prefix))
    want = {"scalar": [], "empty": [0, 3], "cube": [2, 3, 4]}
    for key, shape in want.items():
        got = out.get(f"{key}/.ATTRIBUTES/VARIABLE_VALUE")
        ctx.check(got == shape, f"{key}: {got}, not {shape} (all: {sorted(out)})", "other")
    stored = tf.train.load_checkpoint(prefix).get_variable_to_dtype_map()
    ctx.check(stored["cube/.ATTRIBUTES/VARIABLE_VALUE"] == tdt, f"stored as {stored}", "type")


# Forms: nested trackables (a list and a dict of variables), a checkpoint written by
# CheckpointManager in a folder with several checkpoints (the latest is listed), and a
# pathlib.Path prefix.
@sweep("form-{form}-sweep", form=["nested", "manager-latest", "pathlib"])
def forms(ctx, form):
    import pathlib

    import tensorflow as tf

    folder = tempfile.mkdtemp(prefix="portbench-ckpt-")
    if form == "nested":
        module = tf.Module()
        module.layers = [tf.Variable(np.zeros(2)), {"k": tf.Variable(np.zeros((3, 1)))}]
        prefix = tf.train.Checkpoint(m=module).save(os.path.join(folder, "c"))
        out = dict(ctx.measure(tf.train.list_variables, prefix))
        ctx.check(
            out.get("m/layers/0/.ATTRIBUTES/VARIABLE_VALUE") == [2], f"{sorted(out)}", "other"
        )
        ctx.check(
            out.get("m/layers/1/k/.ATTRIBUTES/VARIABLE_VALUE") == [3, 1], f"{sorted(out)}", "other"
        )
    elif form == "manager-latest":
        v = tf.Variable(np.zeros(1))
        ckpt = tf.train.Checkpoint(v=v)
        manager = tf.train.CheckpointManager(ckpt, folder, max_to_keep=3)
        manager.save()
        ckpt.w = tf.Variable(np.zeros(5))  # only the second checkpoint has w
        manager.save()
        out = dict(ctx.measure(tf.train.list_variables, folder))
        ctx.check(
            out.get("w/.ATTRIBUTES/VARIABLE_VALUE") == [5],
            f"not the latest: {sorted(out)}",
            "other",
        )
    else:
        prefix = tf.train.Checkpoint(v=tf.Variable(np.zeros(4))).save(os.path.join(folder, "c"))
        out = dict(ctx.measure(tf.train.list_variables, pathlib.Path(prefix)))
        ctx.check(out.get("v/.ATTRIBUTES/VARIABLE_VALUE") == [4], f"{sorted(out)}", "other")


# The study's other kind of path here: the documented errors for paths that hold no
# checkpoint (a missing prefix, an empty folder: exact type and message). New names; the
# cases above keep their ids.
@sweep("error-{form}", form=["missing-prefix", "empty-folder"])
def list_variables_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "missing-prefix":
        check_raises(
            ctx,
            lambda: tf.train.list_variables("/nonexistent-portbench/ckpt"),
            tf.errors.NotFoundError,
            r"Unsuccessful TensorSliceReader constructor: Failed to find any matching files",
        )
    else:
        with tempfile.TemporaryDirectory() as folder:
            check_raises(
                ctx,
                lambda: tf.train.list_variables(folder),
                ValueError,
                r"Couldn't find 'checkpoint' file or checkpoints in given directory",
            )
