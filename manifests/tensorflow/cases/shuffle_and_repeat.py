"""tf.data.experimental.shuffle_and_repeat: each epoch a permutation, count epochs, seeded order."""

import numpy as np
from tfhelp import ALL_DTYPES

from portbench_runner.api import case, sweep

NAME = "tensorflow.data.experimental.shuffle_and_repeat"


def _epochs(values, n):
    return [sorted(values[i * n : (i + 1) * n]) for i in range(len(values) // n)]


@case("three-epochs", n=10, count=3, buffer=10)
@case("small-buffer", n=20, count=2, buffer=4)
@case("large", n=50_000, count=2, buffer=10_000)
def epochs(ctx, n, count, buffer):
    import tensorflow as tf

    op = ctx.require(NAME)
    ds = tf.data.Dataset.range(n).apply(op(buffer_size=buffer, count=count, seed=7))
    # Batched reads: one Python step per 4096 elements, so the time is tf.data's, not the
    # interpreter's (batching after the shuffle leaves the order unchanged).
    batched = ds.batch(4096)
    out = ctx.measure(lambda: np.concatenate(list(batched.as_numpy_iterator())))
    ctx.check(out.size == n * count, f"{out.size} elements, expected {n * count}", "other")
    for e in range(count):
        ctx.check_equal(np.sort(out[e * n : (e + 1) * n]), np.arange(n), what=f"epoch {e}")
    ctx.check(
        not np.array_equal(out[:n], np.arange(n)), "the first epoch came out unshuffled", "other"
    )


@case("seed-reproducible")
def seeded(ctx):
    import tensorflow as tf

    op = ctx.require(NAME)

    def draw():
        ds = tf.data.Dataset.range(50).apply(op(buffer_size=50, count=2, seed=42))
        return list(ds.as_numpy_iterator())

    first = ctx.measure(draw)
    ctx.check(first == draw(), "the same seed gave two different orders", "other")


@case("infinite-when-count-none")
def infinite(ctx):
    import tensorflow as tf

    op = ctx.require(NAME)
    ds = tf.data.Dataset.range(3).apply(op(buffer_size=3, seed=1)).take(30)
    out = ctx.measure(lambda: list(ds.as_numpy_iterator()))
    ctx.check(
        len(out) == 30 and sorted(out[:3]) == [0, 1, 2], f"took {len(out)}: {out[:6]}", "other"
    )


# Elements of every dtype, each paired with its index: every epoch is a permutation of the
# indices and each value still travels with its own index; read eagerly and inside a
# tf.function. Seeded, but the order is the shuffle's, so runs are not compared across
# devices. New names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=ALL_DTYPES, mode=["eager", "graph"])
def dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import by_mode, draw, host_exact

    ctx.not_comparable("the shuffled order comes from a random generator")
    op = ctx.require(NAME)
    n, count = 24, 3
    x = ctx.put(draw(ctx, (n,), dtype, -9, 9), dtype=dtype)
    exact = host_exact(ctx, x)

    def read(t):
        ds = tf.data.Dataset.from_tensor_slices((tf.range(n, dtype=tf.int64), t))
        ds = ds.apply(op(buffer_size=n, count=count, seed=3))
        return ds.batch(n * count).get_single_element()

    idx, vals = ctx.measure(by_mode(ctx, read, mode), x)
    idx = np.asarray(ctx.to_numpy(idx))
    ctx.check(idx.size == n * count, f"{idx.size} elements, expected {n * count}", "other")
    for e in range(count):
        ctx.check_equal(np.sort(idx[e * n : (e + 1) * n]), np.arange(n), what=f"epoch {e}")
    ctx.check_equal(vals, exact[idx], what="values follow their indices")


# count=1 is one shuffled epoch, count=-1 repeats forever, a buffer of 1 does not shuffle,
# and count=0 is refused (InvalidArgumentError: count must be > 0 or -1).
@sweep("form-{form}-sweep", form=["count-0-refused", "count-1", "count-minus-1", "buffer-1"])
def forms(ctx, form):
    import tensorflow as tf

    ctx.not_comparable("the shuffled order comes from a random generator")
    op = ctx.require(NAME)
    kwargs = {
        "count-0-refused": {"buffer_size": 10, "count": 0},
        "count-minus-1": {"buffer_size": 10, "count": -1},
        "count-1": {"buffer_size": 10, "count": 1},
        "buffer-1": {"buffer_size": 1, "count": 2},
    }[form]
    if form == "count-0-refused":
        from tfhelp import raises

        def build():
            return list(tf.data.Dataset.range(10).apply(op(seed=5, **kwargs)))

        out = ctx.measure(raises(build, tf.errors.InvalidArgumentError, ValueError))
        ctx.check(out is not None, "count=0 was taken", "other")
        return
    ds = tf.data.Dataset.range(10).apply(op(seed=5, **kwargs)).take(35)
    out = ctx.measure(lambda: list(ds.as_numpy_iterator()))
    if form == "count-minus-1":
        ctx.check(
            len(out) == 35 and sorted(out[:30]) == sorted(list(range(10)) * 3), f"{out}", "other"
        )
    elif form == "count-1":
        ctx.check(sorted(out) == list(range(10)), f"one epoch gave {out}", "other")
    else:
        ctx.check(out == list(range(10)) * 2, f"a buffer of 1 reordered: {out}", "other")


# The study's other kinds of paths: the documented errors for bad arguments (a zero buffer,
# a zero count: exact type and message), the full grid of count (1, 3) x seed (seeded,
# unseeded): every epoch a permutation, seeded orders reproducible, and checkpoint and
# restore of an iterator in the middle of an epoch (the restore resumes the uninterrupted
# run's order at the saved position). New names; the cases above keep their ids.
@sweep("error-{form}", form=["zero-buffer", "zero-count"])
def shuffle_and_repeat_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    op = ctx.require(NAME)
    buffer, count, pattern = (
        (0, 1, r"buffer_size must be greater than zero")
        if form == "zero-buffer"
        else (3, 0, r"count must be greater than zero")
    )
    check_raises(
        ctx,
        lambda: list(tf.data.Dataset.range(3).apply(op(buffer, count))),
        tf.errors.InvalidArgumentError,
        pattern,
    )


@sweep("flags-count{count}-{seed}-sweep", count=[1, 3], seed=["seeded", "unseeded"])
def shuffle_and_repeat_flags(ctx, count, seed):
    import tensorflow as tf

    op = ctx.require(NAME)
    kw = {"seed": 11} if seed == "seeded" else {}
    ds = tf.data.Dataset.range(12).apply(op(buffer_size=12, count=count, **kw))
    out = ctx.measure(lambda: list(ds.as_numpy_iterator()))
    ctx.check(len(out) == 12 * count, f"{len(out)} elements, expected {12 * count}", "other")
    for e in range(count):
        ctx.check_equal(np.sort(out[e * 12 : (e + 1) * 12]), np.arange(12), what=f"epoch {e}")
    if seed == "seeded":
        # The same seed in a new dataset gives the same order (a second pass over one dataset
        # reshuffles: reshuffle_each_iteration).
        again = tf.data.Dataset.range(12).apply(op(buffer_size=12, count=count, **kw))
        ctx.check(
            out == list(again.as_numpy_iterator()), "the same seed gave another order", "other"
        )


@case("checkpoint-mid-epoch")
def shuffle_and_repeat_checkpoint(ctx):
    import tensorflow as tf
    from tfhelp import check_elements, iterator_checkpoint

    op = ctx.require(NAME)
    ds = tf.data.Dataset.range(15).apply(op(buffer_size=6, count=2, seed=3))
    before, uninterrupted, restored = iterator_checkpoint(ctx, ds, consumed=9)
    run = before + uninterrupted
    ctx.check(len(run) == 30, f"{len(run)} elements in two epochs of 15", "other")
    for e in range(2):
        ctx.check_equal(
            np.sort(np.asarray(run[e * 15 : (e + 1) * 15])), np.arange(15), what=f"epoch {e}"
        )
    check_elements(ctx, restored, uninterrupted, "after the restore")
