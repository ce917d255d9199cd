"""tf.data.Dataset.shard: every num_shards-th element starting at index; errors on bad arguments."""

import numpy as np
from tfhelp import raises

from portbench_runner.api import case


@case("range-3-shards-index1", n=10, shards=3, index=1)
@case("two-shards-index0", n=9, shards=2, index=0)
@case("more-shards-than-elements", n=3, shards=5, index=4)
@case("large", n=300_000, shards=7, index=6)
def shard_range(ctx, n, shards, index):
    import tensorflow as tf

    ds = tf.data.Dataset.range(n).shard(shards, index)
    if n > 1000:
        out = ctx.measure(lambda: ds.reduce(np.int64(0), lambda acc, x: acc + 1))
        ctx.check_equal(out, np.int64(len(range(index, n, shards))))
    else:
        out = ctx.measure(lambda: list(ds.as_numpy_iterator()))
        ctx.check(out == list(range(index, n, shards)), f"shard gave {out}", "other")


@case("after-batch-shards-batches")
def batched(ctx):
    import tensorflow as tf

    ds = tf.data.Dataset.range(12).batch(2).shard(3, 2)
    out = ctx.measure(lambda: [b.tolist() for b in ds.as_numpy_iterator()])
    ctx.check(out == [[4, 5], [10, 11]], f"shard of batches gave {out}", "other")


@case("tensor-arguments-in-graph")
def tensor_args(ctx):
    import tensorflow as tf

    @tf.function
    def total(shards, index):
        return (
            tf.data.Dataset.range(20).shard(shards, index).reduce(np.int64(0), lambda a, x: a + x)
        )

    out = ctx.measure(total, tf.constant(4, tf.int64), tf.constant(3, tf.int64))
    ctx.check_equal(out, np.int64(3 + 7 + 11 + 15 + 19))


@case("index-out-of-range-raises")
def bad_index(ctx):
    import tensorflow as tf

    call = raises(
        lambda: list(tf.data.Dataset.range(5).shard(2, 2)),
        tf.errors.InvalidArgumentError,
        ValueError,
    )
    out = ctx.measure(call)
    ctx.check(out is not None, "shard(2, 2) raised nothing", "other")
