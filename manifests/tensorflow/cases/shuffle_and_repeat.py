"""tf.data.experimental.shuffle_and_repeat: each epoch a permutation, count epochs, seeded order."""

import numpy as np

from portbench_runner.api import case

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
