"""tf.compat.v1.train.QueueRunner: threads run enqueue ops into a queue that the graph dequeues.

The study recorded every one of its subtests as skipped; these cases run the queue for real.
"""

import numpy as np
from tfhelp import ALL_DTYPES, v1_graph, v1_session

from portbench_runner.api import case, sweep


@case("one-thread-counter", threads=1)
@case("four-threads", threads=4)
def counter(ctx, threads):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        count = v1.Variable(0, dtype=tf.int64)
        queue = tf.queue.FIFOQueue(100, tf.int64, shapes=[])
        enqueue = queue.enqueue(v1.assign_add(count, 1))
        runner = v1.train.QueueRunner(queue, [enqueue] * threads)
        batch = queue.dequeue_many(20)
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        coord = v1.train.Coordinator()
        started = runner.create_threads(sess, coord=coord, start=True)
        try:
            out = ctx.measure(sess.run, batch, warm=False)
        finally:
            coord.request_stop()
            sess.run(queue.close(cancel_pending_enqueues=True))
            coord.join(started, stop_grace_period_secs=5)
    values = np.asarray(out)
    # One thread per enqueue op, plus the one that closes the queue when the coordinator stops.
    ctx.check(
        len(started) == threads + 1, f"{len(started)} threads started for {threads} ops", "other"
    )
    # With several threads the add and the read of the returned value are two ops, so two
    # threads may both read the same count (one value then skipped): only the size and the
    # range hold; a single thread gives exactly 1..20.
    ctx.check(values.size == 20 and values.min() >= 1, f"dequeued {values}", "other")
    if threads == 1:
        ctx.check_equal(values, np.arange(1, 21))


@case("start-queue-runners-collection")
def collection(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        queue = tf.queue.FIFOQueue(10, tf.float32, shapes=[2])
        enqueue = queue.enqueue(tf.constant([1.5, 2.5]))
        v1.train.add_queue_runner(v1.train.QueueRunner(queue, [enqueue]))
        item = queue.dequeue()
    with v1_session(graph) as sess:
        coord = v1.train.Coordinator()
        threads = v1.train.start_queue_runners(sess, coord=coord)
        try:
            out = ctx.measure(sess.run, item)
        finally:
            coord.request_stop()
            sess.run(queue.close(cancel_pending_enqueues=True))
            coord.join(threads, stop_grace_period_secs=5)
    ctx.check_equal(out, np.array([1.5, 2.5], dtype="float32"))


@case("close-on-stop-ends-input")
def close(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        queue = tf.queue.FIFOQueue(4, tf.int32, shapes=[])
        runner = v1.train.QueueRunner(queue, [queue.enqueue(7)])
        item = queue.dequeue()
    with v1_session(graph) as sess:
        coord = v1.train.Coordinator()
        threads = runner.create_threads(sess, coord=coord, start=True)
        first = sess.run(item)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
        # After the stop the runner closed the queue: what is left drains, then OutOfRange.

        def drain():
            seen = 0
            while True:
                try:
                    sess.run(item)
                    seen += 1
                except tf.errors.OutOfRangeError:
                    return seen

        left = ctx.measure(drain, warm=False)
    ctx.check(first == 7 and 0 <= left <= 4, f"first {first}, drained {left}", "other")


# A queue of every dtype fed by one runner thread: the dequeued batch holds the enqueued
# value each time; new names, so the cases above keep their ids.
@sweep("{dtype}-sweep", dtype=ALL_DTYPES)
def dtypes(ctx, dtype):
    import tensorflow as tf
    from tfhelp import draw, host_exact

    v1 = tf.compat.v1
    item = host_exact(ctx, ctx.put(draw(ctx, (3,), dtype, -9, 9), dtype=dtype))
    with v1_graph(ctx) as graph:
        queue = tf.queue.FIFOQueue(16, getattr(tf, dtype), shapes=[3])
        runner = v1.train.QueueRunner(queue, [queue.enqueue(tf.constant(item, getattr(tf, dtype)))])
        batch = queue.dequeue_many(5)
    with v1_session(graph) as sess:
        coord = v1.train.Coordinator()
        started = runner.create_threads(sess, coord=coord, start=True)
        try:
            out = ctx.measure(sess.run, batch, warm=False)
        finally:
            coord.request_stop()
            sess.run(queue.close(cancel_pending_enqueues=True))
            coord.join(started, stop_grace_period_secs=5)
    ctx.check_equal(out, np.broadcast_to(item, (5, 3)))


# Forms: two different enqueue ops on one runner (both values arrive), a RandomShuffleQueue
# and a PaddingFIFOQueue fed by a runner, and a runner given a close op of its own.
@sweep(
    "form-{form}-sweep", form=["two-ops", "random-shuffle-queue", "padding-queue", "own-close-op"]
)
def forms(ctx, form):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        if form == "random-shuffle-queue":
            queue = tf.queue.RandomShuffleQueue(32, 4, tf.int32, shapes=[], seed=3)
        elif form == "padding-queue":
            queue = tf.queue.PaddingFIFOQueue(32, tf.int32, shapes=[[None]])
        else:
            queue = tf.queue.FIFOQueue(32, tf.int32, shapes=[])
        if form == "two-ops":
            ops = [queue.enqueue(1), queue.enqueue(2)]
        elif form == "padding-queue":
            ops = [queue.enqueue([[5, 6]]), queue.enqueue([[7]])]
        else:
            ops = [queue.enqueue(9)]
        close = queue.close(cancel_pending_enqueues=True) if form == "own-close-op" else None
        runner = v1.train.QueueRunner(queue, ops, close_op=close)
        batch = queue.dequeue_many(12)
    with v1_session(graph) as sess:
        coord = v1.train.Coordinator()
        started = runner.create_threads(sess, coord=coord, start=True)
        try:
            out = np.asarray(ctx.measure(sess.run, batch, warm=False))
        finally:
            coord.request_stop()
            sess.run(queue.close(cancel_pending_enqueues=True))
            coord.join(started, stop_grace_period_secs=5)
    if form == "two-ops":
        ctx.check(set(out.tolist()) <= {1, 2} and out.size == 12, f"dequeued {out}", "other")
    elif form == "padding-queue":
        rows = {tuple(r) for r in out.tolist()}
        ctx.check(out.shape == (12, 2) and rows <= {(5, 6), (7, 0)}, f"dequeued {out}", "other")
    else:
        ctx.check_equal(out, np.full(12, 9, dtype="int32"))


# The study's other kind of path here: the documented errors (a runner without enqueue ops,
# a runner in eager mode: exact type and message). New names; the cases above keep their
# ids.
@sweep("error-{form}", form=["no-enqueue-ops", "eager"])
def queue_runner_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    v1 = tf.compat.v1
    if form == "eager":
        check_raises(
            ctx,
            lambda: v1.train.QueueRunner(None, []),
            RuntimeError,
            r"QueueRunners are not supported when eager execution is enabled",
        )
        return

    def build():
        with v1_graph(ctx):
            return v1.train.QueueRunner(v1.FIFOQueue(2, tf.float32), [])

    check_raises(ctx, build, ValueError, r"Must provide queue and enqueue_ops")
