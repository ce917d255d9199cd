"""tf.data.Dataset.shard: every num_shards-th element starting at index; errors on bad arguments."""

import numpy as np
from tfhelp import ALL_DTYPES, raises

from portbench_runner.api import case, sweep


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


# Elements of every dtype (the shard keeps them untouched), iterated eagerly and reduced
# inside a tf.function; new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=ALL_DTYPES, mode=["eager", "graph"])
def shard_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import by_mode, draw, host_exact

    x = ctx.put(draw(ctx, (17, 2), dtype, -9, 9), dtype=dtype)
    exact = host_exact(ctx, x)

    def take(t):
        ds = tf.data.Dataset.from_tensor_slices(t).shard(4, 3)
        return ds.batch(100).get_single_element()

    out = ctx.measure(by_mode(ctx, take, mode), x)
    ctx.check_equal(out, exact[3::4])


# Argument forms: int64 tensor arguments (int32 tensors are refused: num_shards and index are
# documented as tf.int64 scalars), structured elements (a dict of a tuple), and shards of
# an empty dataset.
@sweep(
    "form-{form}-sweep", form=["int32-tensors-refused", "int64-tensors", "dict-elements", "empty"]
)
def shard_forms(ctx, form):
    import tensorflow as tf

    if form == "int32-tensors-refused":
        from tfhelp import raises

        def build():
            return tf.data.Dataset.range(23).shard(tf.constant(5), tf.constant(2))

        out = ctx.measure(raises(build, ValueError, TypeError))
        ctx.check(out is not None, "int32 shard arguments were taken", "other")
    elif form.endswith("tensors"):
        dt = tf.int64
        ds = tf.data.Dataset.range(23).shard(tf.constant(5, dt), tf.constant(2, dt))
        out = ctx.measure(lambda: list(ds.as_numpy_iterator()))
        ctx.check(out == list(range(2, 23, 5)), f"shard gave {out}", "other")
    elif form == "dict-elements":
        base = {"i": np.arange(8), "p": (np.arange(8) * 2.0, np.arange(8) % 2 == 0)}
        ds = tf.data.Dataset.from_tensor_slices(base).shard(3, 0)
        out = ctx.measure(lambda: list(ds.as_numpy_iterator()))
        ctx.check([e["i"] for e in out] == [0, 3, 6], f"shard gave {out}", "other")
        ctx.check([float(e["p"][0]) for e in out] == [0.0, 6.0, 12.0], "tuple leaves", "other")
        ctx.check([bool(e["p"][1]) for e in out] == [True, False, True], "bool leaves", "other")
    else:
        ds = tf.data.Dataset.range(0).shard(2, 1)
        out = ctx.measure(lambda: list(ds.as_numpy_iterator()))
        ctx.check(out == [], f"a shard of nothing gave {out}", "other")


# The study's other kinds of paths: the documented errors for bad arguments (an index not
# below num_shards, zero shards: exact type and message), the full grid of num_shards x index
# (first, last), and checkpoint and restore of an iterator over a shard (the restore resumes
# at the saved position). New names; the cases above keep their ids.
@sweep("error-{form}", form=["index-not-below-shards", "zero-shards"])
def shard_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "index-not-below-shards":
        call, pattern = (
            (lambda: list(tf.data.Dataset.range(5).shard(2, 2))),
            r"Index must be between 0 and 1",
        )
    else:
        call, pattern = (
            (lambda: list(tf.data.Dataset.range(5).shard(0, 0))),
            r"Number of shards must be greater than zero",
        )
    check_raises(ctx, call, tf.errors.InvalidArgumentError, pattern)


@sweep("flags-shards{shards}-index-{index}-sweep", shards=[1, 2, 5], index=["first", "last"])
def shard_flags(ctx, shards, index):
    import tensorflow as tf

    i = 0 if index == "first" else shards - 1
    ds = tf.data.Dataset.range(23).shard(shards, i)
    out = ctx.measure(lambda: list(ds.as_numpy_iterator()))
    ctx.check(out == list(range(i, 23, shards)), f"shard({shards}, {i}) gave {out}", "other")


@case("checkpoint-iterator")
def shard_checkpoint(ctx):
    import tensorflow as tf
    from tfhelp import check_elements, iterator_checkpoint

    ds = tf.data.Dataset.range(40).shard(3, 1)
    before, uninterrupted, restored = iterator_checkpoint(ctx, ds, consumed=5)
    every = [np.int64(v) for v in range(1, 40, 3)]
    check_elements(ctx, before + uninterrupted, every, "the saved run")
    check_elements(ctx, restored, every[5:], "after the restore")
