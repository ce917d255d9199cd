"""tf.estimator.CheckpointSaverHook: a MonitoredSession with the hook writes checkpoints and calls listeners.

tf.estimator was removed in TensorFlow 2.16: there the cases skip (the same class lives on as
tf.compat.v1.train.CheckpointSaverHook, which this row does not name).
"""

import os
import tempfile

import numpy as np
from tfhelp import EVERY_DTYPE, STRINGS, raises, v1_graph

from portbench_runner.api import case, sweep

NAME = "tensorflow.estimator.CheckpointSaverHook"


def _train_graph(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        step = v1.train.create_global_step()
        weight = v1.Variable(np.float32(1.0), name="weight")
        train = tf.group(v1.assign_add(weight, 1.0), v1.assign_add(step, 1))
    return graph, train


@case("save-steps")
def save_steps(ctx):
    import tensorflow as tf

    hook_cls = ctx.require(NAME)
    folder = tempfile.mkdtemp(prefix="portbench-ckpt-")
    graph, train = _train_graph(ctx)
    with graph.as_default():
        hook = hook_cls(folder, save_steps=2)
        with tf.compat.v1.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(3):
                sess.run(train)
            ctx.measure(sess.run, train, warm=False)
    latest = tf.train.latest_checkpoint(folder)
    ctx.check(latest is not None, f"no checkpoint in {folder}", "other")
    reader = tf.train.load_checkpoint(latest)
    ctx.check(
        reader.get_tensor("global_step") in (3, 4),
        f"saved global_step {reader.get_tensor('global_step')}",
        "other",
    )
    ctx.check_close(
        reader.get_tensor("weight"), float(reader.get_tensor("global_step")) + 1.0, dtype="float32"
    )


@case("listener-called")
def listener(ctx):
    import tensorflow as tf

    hook_cls = ctx.require(NAME)
    events = []

    class Listener(tf.compat.v1.train.CheckpointSaverListener):
        def before_save(self, session, global_step_value):
            events.append(("before", global_step_value))

        def after_save(self, session, global_step_value):
            events.append(("after", global_step_value))

    folder = tempfile.mkdtemp(prefix="portbench-ckpt-")
    graph, train = _train_graph(ctx)
    with graph.as_default():
        hook = hook_cls(folder, save_steps=1, listeners=[Listener()])
        with tf.compat.v1.train.MonitoredSession(hooks=[hook]) as sess:
            ctx.measure(sess.run, train, warm=False)
    ctx.check(
        ("before", 1) in events and ("after", 1) in events, f"listener events {events}", "other"
    )


@case("saves-at-end")
def at_end(ctx):
    import tensorflow as tf

    hook_cls = ctx.require(NAME)
    folder = tempfile.mkdtemp(prefix="portbench-ckpt-")
    graph, train = _train_graph(ctx)
    with graph.as_default():
        hook = hook_cls(folder, save_steps=1000)
        sess = tf.compat.v1.train.MonitoredSession(hooks=[hook])
        sess.run(train)
        sess.run(train)
        ctx.measure(sess.close, warm=False)  # end() of the hook saves the last step
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(folder))
    ctx.check(
        reader.get_tensor("global_step") == 2,
        f"final checkpoint at step {reader.get_tensor('global_step')}",
        "other",
    )
    ctx.check(
        os.path.exists(os.path.join(folder, "checkpoint")), "no 'checkpoint' index file", "other"
    )


@case("needs-exactly-one-trigger")
def bad_args(ctx):

    hook_cls = ctx.require(NAME)
    out = ctx.measure(raises(lambda: hook_cls("/tmp/x", save_steps=1, save_secs=1), ValueError))
    ctx.check(out == "ValueError", f"both save_steps and save_secs raised {out}", "other")


# A variable of every dtype (and strings) is written by the hook and reads back equal from
# the checkpoint; the training step the hook observes is one global-step increment. New
# names, so the cases above keep their ids (skipped where tf.estimator is gone).
@sweep("{dtype}-variable-sweep", dtype=EVERY_DTYPE + STRINGS)
def variable_dtypes(ctx, dtype):
    import tensorflow as tf
    from tfhelp import draw_any

    hook_cls = ctx.require(NAME)
    v1 = tf.compat.v1
    if dtype == "string":
        x = np.array([b"ckpt", b"", b"portbench"], dtype=object)
    else:
        x = draw_any(ctx, (2, 3), dtype)
    folder = tempfile.mkdtemp(prefix="portbench-ckpt-")
    with v1_graph(ctx) as graph:
        step = v1.train.create_global_step()
        v1.Variable(tf.constant(x, dtype=getattr(tf, dtype)), name="value")
        train = v1.assign_add(step, 1)
    with graph.as_default():
        hook = hook_cls(folder, save_steps=1)
        with v1.train.MonitoredSession(hooks=[hook]) as sess:
            ctx.measure(sess.run, train, warm=False)
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(folder))
    dtypes = reader.get_variable_to_dtype_map()
    ctx.check(
        dtypes.get("value") == getattr(tf, dtype), f"saved dtype {dtypes.get('value')}", "type"
    )
    got = np.asarray(reader.get_tensor("value"))
    ctx.check_equal(got if dtype == "string" else got.astype(x.dtype), x)


@case("save-secs-initial-and-final")
def save_secs(ctx):
    import tensorflow as tf

    hook_cls = ctx.require(NAME)
    folder = tempfile.mkdtemp(prefix="portbench-ckpt-")
    graph, train = _train_graph(ctx)
    with graph.as_default():
        hook = hook_cls(folder, save_secs=3600)  # the timer never fires within the case
        sess = tf.compat.v1.train.MonitoredSession(hooks=[hook])
        for _ in range(3):
            sess.run(train)
        ctx.measure(sess.close, warm=False)
    paths = tf.train.get_checkpoint_state(folder).all_model_checkpoint_paths
    steps = sorted(int(p.rsplit("-", 1)[1]) for p in paths)
    # The hook saves once the session exists (step 0) and once more at the end (step 3).
    ctx.check(steps == [0, 3], f"checkpoints at steps {steps}", "other")


@case("scaffold-saver-subset")
def scaffold(ctx):
    import tensorflow as tf

    hook_cls = ctx.require(NAME)
    v1 = tf.compat.v1
    folder = tempfile.mkdtemp(prefix="portbench-ckpt-")
    with v1_graph(ctx) as graph:
        step = v1.train.create_global_step()
        kept = v1.Variable(np.float32(2.0), name="kept")
        v1.Variable(np.float32(3.0), name="skipped")
        train = v1.assign_add(step, 1)
        saver = v1.train.Saver(var_list=[kept, step])
    with graph.as_default():
        hook = hook_cls(folder, save_steps=1, scaffold=v1.train.Scaffold(saver=saver))
        with v1.train.MonitoredSession(hooks=[hook]) as sess:
            ctx.measure(sess.run, train, warm=False)
    names = set(
        tf.train.load_checkpoint(tf.train.latest_checkpoint(folder)).get_variable_to_shape_map()
    )
    ctx.check(
        "kept" in names and "skipped" not in names, f"checkpoint holds {sorted(names)}", "other"
    )


# The study's other kinds of paths: the documented errors for the trigger (save_steps with
# save_secs, neither: exact type and message), and checkpoint and restore (a fresh graph's
# Saver restores the checkpoint the hook wrote: the trained weight and the global step
# come back). New names; the cases above keep their ids (skipped where tf.estimator is
# gone).
@sweep("error-{form}", form=["steps-and-secs", "no-trigger"])
def hook_errors(ctx, form):
    from tfhelp import check_raises

    hook_cls = ctx.require(NAME)
    if form == "steps-and-secs":
        check_raises(
            ctx,
            lambda: hook_cls("/tmp/portbench-x", save_steps=1, save_secs=1),
            ValueError,
            r"Can not provide both every_secs and every_steps",
        )
    else:
        check_raises(
            ctx,
            lambda: hook_cls("/tmp/portbench-x"),
            ValueError,
            r"Either every_secs or every_steps should be provided",
        )


@case("checkpoint-restore-written")
def hook_checkpoint(ctx):
    import tensorflow as tf
    from tfhelp import v1_session

    hook_cls = ctx.require(NAME)
    v1 = tf.compat.v1
    folder = tempfile.mkdtemp(prefix="portbench-ckpt-")
    graph, train = _train_graph(ctx)
    with graph.as_default():
        hook = hook_cls(folder, save_steps=1)
        with v1.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(4):
                sess.run(train)
    latest = tf.train.latest_checkpoint(folder)
    ctx.check(latest is not None, f"no checkpoint in {folder}", "other")
    with v1_graph(ctx) as fresh:
        step = v1.train.create_global_step()
        weight = v1.Variable(np.float32(0.0), name="weight")
        saver = v1.train.Saver()
    with v1_session(fresh) as sess:
        out = ctx.measure(
            lambda: (saver.restore(sess, latest), sess.run([weight, step]))[1], warm=False
        )
    ctx.check_close(out[0], 5.0, dtype="float32", what="the restored weight (1 + 4 steps)")
    ctx.check_equal(out[1], np.int64(4))
