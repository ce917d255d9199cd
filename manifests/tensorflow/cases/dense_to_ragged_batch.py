"""tf.data.experimental.dense_to_ragged_batch: batches elements of different lengths into RaggedTensors."""

import numpy as np
from tfhelp import EVERY_DTYPE, STRINGS

from portbench_runner.api import case, sweep

NAME = "tensorflow.data.experimental.dense_to_ragged_batch"


def _dataset(lengths):
    import tensorflow as tf

    return tf.data.Dataset.from_tensor_slices(np.array(lengths, dtype="int64")).map(tf.range)


@case("ragged-batches", lengths=[1, 3, 0, 2, 5], batch=2, drop=False)
@case("drop-remainder", lengths=[1, 3, 0, 2, 5], batch=2, drop=True)
@case("one-batch-of-all", lengths=[4, 4, 1], batch=8, drop=False)
@case("many-elements", lengths=list(range(1000)), batch=100, drop=False)
def batches(ctx, lengths, batch, drop):
    op = ctx.require(NAME)
    ds = _dataset(lengths).apply(op(batch, drop_remainder=drop))
    out = ctx.measure(lambda: [b.to_list() for b in ds])
    expected = []
    for i in range(0, len(lengths), batch):
        chunk = lengths[i : i + batch]
        if drop and len(chunk) < batch:
            break
        expected.append([list(range(n)) for n in chunk])
    ctx.check(out == expected, f"{len(out)} batches; first {out[:1]} vs {expected[:1]}", "other")


@case("fully-defined-shapes-stay-dense")
def equal(ctx):
    import tensorflow as tf

    op = ctx.require(NAME)
    ds = tf.data.Dataset.from_tensor_slices(np.arange(12, dtype="float32").reshape(4, 3)).apply(
        op(2)
    )
    out = ctx.measure(lambda: list(ds))
    # Components whose static shape is fully defined are batched densely, as Dataset.batch does.
    ctx.check(isinstance(out[0], tf.Tensor), f"element type {type(out[0]).__name__}", "type")
    ctx.check_equal(out[1], np.arange(6, 12, dtype="float32").reshape(2, 3))


# Elements of every dtype (and strings) with varying lengths, batched ragged; the
# row_splits dtype in both forms the argument takes (int64 default, int32). New names.
@sweep("{dtype}-splits-{splits}-sweep", dtype=EVERY_DTYPE + STRINGS, splits=["int64", "int32"])
def dtypes(ctx, dtype, splits):
    import tensorflow as tf

    op = ctx.require(NAME)
    lengths = [2, 0, 3, 1, 4]
    target = getattr(tf, dtype)

    def element(n):
        values = tf.range(n) % 2
        if dtype == "string":
            return tf.strings.as_string(values)
        return tf.cast(values, target) if dtype != "bool" else values > 0

    ds = tf.data.Dataset.from_tensor_slices(np.array(lengths, dtype="int64")).map(element)
    ds = ds.apply(op(2, row_splits_dtype=getattr(tf, splits)))
    out = ctx.measure(lambda: list(ds))
    spec = ds.element_spec
    ctx.check(
        spec.dtype.name == dtype and spec.row_splits_dtype.name == splits, f"spec {spec}", "type"
    )
    ctx.check([len(b.row_lengths()) for b in out] == [2, 2, 1], f"{len(out)} batches", "other")
    lens = [int(n) for b in out for n in b.row_lengths().numpy()]
    ctx.check(lens == lengths, f"row lengths {lens}", "other")
    flat = np.concatenate([np.asarray(b.flat_values.numpy()).reshape(-1) for b in out])
    want = np.concatenate([np.arange(n) % 2 for n in lengths])
    if dtype == "string":
        want = np.array([str(v).encode() for v in want], dtype=object)
    ctx.check_equal(flat.astype(want.dtype) if dtype != "string" else flat, want)


# The study's other kinds of paths: the documented errors for bad arguments (a zero batch
# size, float row splits: exact type and message), index forms of the RaggedTensor batches
# it makes (a row, a negative row, a slice of rows, a reversed row, an item of a row), and
# checkpoint and restore of an iterator over ragged batches (the restore resumes at the
# saved position). New names; the cases above keep their ids.
@sweep("error-{form}", form=["zero-batch", "float-row-splits"])
def dense_to_ragged_batch_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    op = ctx.require(NAME)
    if form == "zero-batch":
        check_raises(
            ctx,
            lambda: list(_dataset([1, 2, 3]).apply(op(0))),
            tf.errors.InvalidArgumentError,
            r"Batch size must be greater than zero",
        )
    else:
        check_raises(
            ctx,
            lambda: list(_dataset([1, 2, 3]).apply(op(2, row_splits_dtype=tf.float32))),
            tf.errors.InvalidArgumentError,
            r"Value for attr 'Tsplits' of float is not in the list of allowed values",
        )


@sweep("index-{form}-sweep", form=["row", "negative-row", "row-slice", "reversed-row", "row-item"])
def dense_to_ragged_batch_index(ctx, form):
    op = ctx.require(NAME)
    lengths = [3, 1, 4, 2, 5]
    batch = next(iter(_dataset(lengths).apply(op(5))))
    rows = [list(range(n)) for n in lengths]
    pick = {
        "row": (lambda rt: rt[2], rows[2]),
        "negative-row": (lambda rt: rt[-1], rows[-1]),
        "row-slice": (lambda rt: rt[1:4], rows[1:4]),
        "reversed-row": (lambda rt: rt[3][::-1], rows[3][::-1]),
        "row-item": (lambda rt: rt[4][2], rows[4][2]),
    }
    index, expected = pick[form]
    out = ctx.measure(index, batch)
    got = out.to_list() if hasattr(out, "to_list") else np.asarray(out).tolist()
    ctx.check(got == expected, f"{form} gave {got}, expected {expected}", "other")


@case("checkpoint-iterator")
def dense_to_ragged_batch_checkpoint(ctx):
    from tfhelp import check_elements, iterator_checkpoint

    op = ctx.require(NAME)
    ds = _dataset([1, 3, 0, 2, 5, 4, 2, 1, 3]).apply(op(2)).map(lambda rt: rt.to_tensor(-1))
    fresh = [np.asarray(b) for b in ds]
    before, uninterrupted, restored = iterator_checkpoint(ctx, ds, consumed=2)
    ctx.check(len(fresh) == 5, f"{len(fresh)} batches, expected 5", "other")
    check_elements(ctx, before + uninterrupted, fresh, "the saved run")
    check_elements(ctx, restored, fresh[2:], "after the restore")
