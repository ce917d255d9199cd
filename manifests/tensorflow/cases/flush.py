"""tf.summary.flush: pending summaries reach the event file on disk (read back with TFRecordDataset).

Summaries are written with tf.summary.write, the core op: tf.summary.scalar is TensorBoard's
and the tensorflow-cpu 2.21 wheel no longer depends on TensorBoard (2.11's did).
"""

import glob
import os
import tempfile

import numpy as np
from tfhelp import EAGER_GRAPH, EVERY_DTYPE, STRINGS

from portbench_runner.api import case, sweep


def _tags_on_disk(folder):
    import tensorflow as tf

    found = {}
    for path in glob.glob(os.path.join(folder, "events.out.tfevents.*")):
        for record in tf.data.TFRecordDataset(path):
            event = tf.compat.v1.Event.FromString(record.numpy())
            for value in event.summary.value:
                found[value.tag] = (
                    float(tf.make_ndarray(value.tensor))
                    if value.HasField("tensor")
                    else value.simple_value
                )
    return found


def _writer(folder):
    import tensorflow as tf

    # A long flush interval and a big queue: nothing reaches disk unless flush() is called.
    return tf.summary.create_file_writer(folder, max_queue=1000, flush_millis=10**9)


@case("default-writer")
def default_writer(ctx):
    import tensorflow as tf

    folder = tempfile.mkdtemp(prefix="portbench-summary-")
    writer = _writer(folder)
    with writer.as_default():
        tf.summary.write("loss", tf.constant(0.25), step=1)
        before = _tags_on_disk(folder)
        ctx.measure(tf.summary.flush, warm=False)
    after = _tags_on_disk(folder)
    ctx.check("loss" not in before, "the scalar reached disk before flush()", "other")
    ctx.check(after.get("loss") == 0.25, f"after flush() the file holds {after}", "other")


@case("explicit-writer")
def explicit(ctx):
    import tensorflow as tf

    folder = tempfile.mkdtemp(prefix="portbench-summary-")
    writer = _writer(folder)
    with writer.as_default():
        for i in range(100):
            tf.summary.write(f"s{i}", tf.constant(float(i)), step=i)
    ctx.measure(tf.summary.flush, writer=writer, warm=False)
    after = _tags_on_disk(folder)
    ctx.check(len(after) == 100 and after["s99"] == 99.0, f"{len(after)} tags on disk", "other")


@case("inside-tf-function")
def in_function(ctx):
    import tensorflow as tf

    folder = tempfile.mkdtemp(prefix="portbench-summary-")
    writer = _writer(folder)

    @tf.function
    def log_and_flush(x):
        with writer.as_default():
            tf.summary.write("mean", tf.reduce_mean(x), step=7)
            tf.summary.flush()
        return x

    ctx.measure(log_and_flush, ctx.put(np.array([1.0, 2.0], dtype="float32")), warm=False)
    after = _tags_on_disk(folder)
    ctx.check(
        after.get("mean") == 1.5, f"after flush() in a tf.function the file holds {after}", "other"
    )


@case("no-writer-is-noop")
def no_writer(ctx):
    import tensorflow as tf

    out = ctx.measure(tf.summary.flush)
    ctx.check(
        out is None or not isinstance(out, bool),
        f"flush() without a writer returned {out!r}",
        "other",
    )


def _tensors_on_disk(folder):
    """Every summary tensor in the folder's event files, by tag, as NumPy arrays."""
    import tensorflow as tf

    found = {}
    for path in glob.glob(os.path.join(folder, "events.out.tfevents.*")):
        for record in tf.data.TFRecordDataset(path):
            event = tf.compat.v1.Event.FromString(record.numpy())
            for value in event.summary.value:
                found[value.tag] = tf.make_ndarray(value.tensor)
    return found


# A summary tensor of every dtype (and strings) reaches disk only once flush() runs,
# eagerly and inside a tf.function (the summary ops run on the CPU: XLA does not compile
# them). New names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE + STRINGS, mode=EAGER_GRAPH)
def dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import by_mode, draw_any

    folder = tempfile.mkdtemp(prefix="portbench-summary-")
    writer = _writer(folder)
    if dtype == "string":
        x = np.array([b"ab", b"", "\u00fc".encode()], dtype=object)
        value = tf.constant(x)
    else:
        x = draw_any(ctx, (2, 3), dtype)
        value = tf.constant(x, dtype=getattr(tf, dtype))

    def log_and_flush(v):
        with writer.as_default():
            tf.summary.write("value", v, step=3)
            tf.summary.flush()
        return tf.constant(0)

    before = _tensors_on_disk(folder)
    ctx.measure(by_mode(ctx, log_and_flush, mode), value, warm=False)
    after = _tensors_on_disk(folder)
    ctx.check("value" not in before, "the summary reached disk before flush()", "other")
    ctx.check("value" in after, f"after flush() the file holds {sorted(after)}", "other")
    got = after["value"]
    ctx.check_equal(got if dtype == "string" else got.astype(x.dtype), x)


@case("writer-flushes-only-its-file")
def two_writers(ctx):
    import tensorflow as tf

    first, second = (tempfile.mkdtemp(prefix="portbench-summary-") for _ in range(2))
    w1, w2 = _writer(first), _writer(second)
    # Both stay entered: leaving a writer's as_default() scope flushes that writer.
    with w1.as_default():
        tf.summary.write("a", tf.constant(1.0), step=1)
        with w2.as_default():
            tf.summary.write("b", tf.constant(2.0), step=1)
            ctx.measure(tf.summary.flush, writer=w2, warm=False)
            first_now, second_now = _tags_on_disk(first), _tags_on_disk(second)
    ctx.check("a" not in first_now, "flushing w2 flushed w1", "other")
    ctx.check(second_now.get("b") == 2.0, "w2 was not flushed", "other")


# The study's other kind of path here: the documented error for an argument that is no
# writer (exact type and message). New name; the cases above keep their ids.
@case("error-not-a-writer")
def flush_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    check_raises(
        ctx,
        lambda: tf.summary.flush(writer="notawriter"),
        ValueError,
        r"Invalid argument to flush\(\): 'notawriter'",
    )
