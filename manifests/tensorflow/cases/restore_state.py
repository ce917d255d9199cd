"""tf.compat.v1.TextLineReader.restore_state: a reader rewound to a serialized state re-reads lines.

Finding: TextLineReader implements neither SerializeState nor RestoreState (the base reader's
UnimplementedError, in 2.11 and in current); the API documents that "not all Readers support
being restored". The first three cases test what a user would rely on (and fail as
not_implemented); the last checks the documented error type.
"""

import os
import tempfile

from tfhelp import raises, v1_graph, v1_session

from portbench_runner.api import case, sweep


def _file(lines, header=None):
    folder = tempfile.mkdtemp(prefix="portbench-reader-")
    path = os.path.join(folder, "data.txt")
    with open(path, "w", encoding="utf-8") as fh:
        if header:
            fh.write(header + "\n")
        fh.write("\n".join(lines) + "\n")
    return path


def _reader_graph(ctx, path, skip=0):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        queue = tf.queue.FIFOQueue(4, tf.string, shapes=[])
        fill = queue.enqueue_many([[path]])
        reader = v1.TextLineReader(skip_header_lines=skip)
        _key, value = reader.read(queue)
        state = reader.serialize_state()
        saved = v1.placeholder(tf.string, [])
        restore = reader.restore_state(saved)
    return graph, fill, value, state, saved, restore


@case("rewind-to-after-first-line")
def rewind(ctx):
    path = _file(["alpha", "beta", "gamma"])
    graph, fill, value, state, saved, restore = _reader_graph(ctx, path)
    with v1_session(graph) as sess:
        sess.run(fill)
        first = sess.run(value)
        snapshot = sess.run(state)
        second = sess.run(value)
        ctx.measure(sess.run, restore, {saved: snapshot})
        again = sess.run(value)
    ctx.check(
        first == b"alpha" and second == b"beta" and again == b"beta",
        f"read {first}, {second}, then {again}",
        "other",
    )


@case("with-skipped-header")
def header(ctx):
    path = _file(["1", "2", "3", "4"], header="id")
    graph, fill, value, state, saved, restore = _reader_graph(ctx, path, skip=1)
    with v1_session(graph) as sess:
        sess.run(fill)
        sess.run(value)
        sess.run(value)
        snapshot = sess.run(state)
        sess.run(value)
        ctx.measure(sess.run, restore, {saved: snapshot})
        again = sess.run(value)
    ctx.check(
        again == b"3", f"after restoring past the header and two lines, read {again}", "other"
    )


@case("restore-into-fresh-reader")
def fresh(ctx):
    path = _file([f"line{i}" for i in range(50)])
    graph, fill, value, state, _saved, _restore = _reader_graph(ctx, path)
    with v1_session(graph) as sess:
        sess.run(fill)
        for _ in range(30):
            sess.run(value)
        snapshot = sess.run(state)
    graph2, _fill2, value2, _, saved2, restore2 = _reader_graph(ctx, path)
    with v1_session(graph2) as sess:
        ctx.measure(sess.run, restore2, {saved2: snapshot}, warm=False)
        again = sess.run(value2)
    ctx.check(again == b"line30", f"a new reader restored to line 30 read {again}", "other")


@case("unsupported-raises-unimplemented")
def garbage(ctx):
    import tensorflow as tf

    path = _file(["x"])
    graph, _fill, _value, _state, saved, restore = _reader_graph(ctx, path)
    with v1_session(graph) as sess:
        errors = (tf.errors.UnimplementedError, tf.errors.InvalidArgumentError)
        out = ctx.measure(raises(lambda: sess.run(restore, {saved: b"not a state"}), *errors))
    ctx.check(
        out == "UnimplementedError", f"restore_state on a TextLineReader raised {out}", "other"
    )


# The states a caller might hand restore_state: an empty string, a real state serialized by
# a reader that does support it (WholeFileReader), and a state fed after the reader hit the
# end of its file. TextLineReader refuses them all with the base reader's documented
# UnimplementedError (a garbage state is asserted above); new names, so the cases above
# keep their ids.
@sweep("{form}-refused-sweep", form=["empty-state", "other-reader-state", "after-end-of-file"])
def refused_forms(ctx, form):
    import tensorflow as tf

    path = _file(["only"])
    graph, fill, value, _state, saved, restore = _reader_graph(ctx, path)
    with graph.as_default():
        other = tf.compat.v1.WholeFileReader()
        queue = tf.queue.FIFOQueue(2, tf.string, shapes=[])
        other_fill = queue.enqueue_many([[path]])
        other.read(queue)
        other_state = other.serialize_state()
    with v1_session(graph) as sess:
        sess.run(fill)
        state = b""
        if form == "other-reader-state":
            sess.run(other_fill)
            state = sess.run(other_state)
        elif form == "after-end-of-file":
            sess.run(value)
            sess.run(queue.close())
        errors = (tf.errors.UnimplementedError, tf.errors.InvalidArgumentError)
        out = ctx.measure(raises(lambda: sess.run(restore, {saved: state}), *errors))
    ctx.check(out == "UnimplementedError", f"restore_state({form}) raised {out}", "other")


# Readers are TF1 graph objects: building one eagerly is refused (RuntimeError).
@case("eager-raises")
def eager(ctx):
    import tensorflow as tf

    out = ctx.measure(raises(tf.compat.v1.TextLineReader, RuntimeError))
    ctx.check(out == "RuntimeError", f"an eager TextLineReader raised {out}", "other")


# The study's other kind of path here: the documented error for a reader in eager mode
# (exact type and message). New name; the cases above keep their ids.
@case("error-eager")
def restore_state_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    check_raises(
        ctx,
        tf.compat.v1.TextLineReader,
        RuntimeError,
        r"Readers are not supported when eager execution is enabled",
    )
