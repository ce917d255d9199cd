"""tf.data.experimental.from_list: a dataset yielding the list's elements (scalars, tuples, dicts) in order."""

import numpy as np
from tfhelp import EVERY_DTYPE, STRINGS, raises

from portbench_runner.api import case, sweep

NAME = "tensorflow.data.experimental.from_list"


@case("ints")
def ints(ctx):
    from_list = ctx.require(NAME)
    ds = from_list([3, 1, 4, 1, 5])
    out = ctx.measure(lambda: list(ds.as_numpy_iterator()))
    ctx.check(out == [3, 1, 4, 1, 5], f"elements {out}", "other")


@case("tuples-of-arrays")
def tuples(ctx):
    from_list = ctx.require(NAME)
    items = [(np.array([i, i + 1], dtype="float32"), f"s{i}") for i in range(4)]
    ds = from_list(items)
    out = ctx.measure(lambda: list(ds.as_numpy_iterator()))
    ctx.check(len(out) == 4 and out[2][1] == b"s2", f"elements {out}", "other")
    ctx.check_equal(out[3][0], np.array([3.0, 4.0], dtype="float32"))


@case("dicts")
def dicts(ctx):
    from_list = ctx.require(NAME)
    ds = from_list([{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}])
    out = ctx.measure(lambda: list(ds.as_numpy_iterator()))
    ctx.check([e["a"] for e in out] == [1, 2], f"elements {out}", "other")
    ctx.check_equal(out[1]["b"], np.array([3.0, 4.0], dtype="float32"))


@case("many-elements-batched")
def many(ctx):
    from_list = ctx.require(NAME)
    ds = from_list(list(range(10_000))).batch(1000)
    out = ctx.measure(lambda: [b.sum() for b in ds.as_numpy_iterator()])
    ctx.check(out[0] == sum(range(1000)) and len(out) == 10, f"batch sums {out[:2]}...", "other")


@case("mixed-structures-raise")
def mixed(ctx):
    from_list = ctx.require(NAME)
    out = ctx.measure(raises(lambda: from_list([1, (2, 3)]), ValueError, TypeError))
    ctx.check(out is not None, "elements of different structures were accepted", "other")


# Elements of every dtype (and strings), as eager tensors and as NumPy arrays: the
# dataset's element_spec keeps the dtype and iterating yields the values in order. New names.
@sweep("{dtype}-{source}-sweep", dtype=EVERY_DTYPE + STRINGS, source=["tensor", "numpy"])
def dtypes(ctx, dtype, source):
    import tensorflow as tf
    from tfhelp import draw_any

    from_list = ctx.require(NAME)
    if dtype == "string":
        items = [np.array([f"e{i}", "x"]) for i in range(4)]
    else:
        items = [draw_any(ctx, (3,), dtype) for _ in range(4)]
    if source == "tensor" or dtype == "bfloat16":  # bfloat16 has no plain NumPy dtype
        items_in = [tf.constant(x, dtype=getattr(tf, dtype)) for x in items]
    else:
        items_in = items
    ds = from_list(items_in)
    out = ctx.measure(lambda: list(ds.as_numpy_iterator()))
    ctx.check(ds.element_spec.dtype.name == dtype, f"element_spec {ds.element_spec}", "type")
    ctx.check(len(out) == 4, f"{len(out)} elements", "other")
    for got, want in zip(out, items):
        want = want.astype(object).astype(bytes) if dtype == "string" else want
        ctx.check_equal(np.asarray(got).astype(want.dtype), want)


@case("empty-list-raises")
def empty(ctx):
    from_list = ctx.require(NAME)
    out = ctx.measure(raises(lambda: from_list([]), ValueError))
    ctx.check(out == "ValueError", f"an empty list raised {out}", "other")


# The study's other kinds of paths: the documented errors for bad lists (empty, elements of
# different structures: exact type and message), and checkpoint and restore of an iterator
# (tf.train.Checkpoint saves it mid-way; after two more reads the restore resumes at the
# saved position) over scalars, tuples and dicts. New names; the cases above keep their ids.
@sweep("error-{form}", form=["empty-list", "mixed-structures"])
def from_list_errors(ctx, form):
    from tfhelp import check_raises

    from_list = ctx.require(NAME)
    if form == "empty-list":
        check_raises(ctx, lambda: from_list([]), ValueError, r"`elements` should not be empty")
    else:
        check_raises(
            ctx, lambda: from_list([1, (2, 3)]), ValueError, r"don't have the same nested structure"
        )


@sweep("checkpoint-{form}-sweep", form=["scalars", "tuples", "dicts"])
def from_list_checkpoint(ctx, form):
    import tensorflow as tf
    from tfhelp import check_elements, iterator_checkpoint

    from_list = ctx.require(NAME)
    items = {
        "scalars": list(range(10)),
        "tuples": [(np.array([i, -i], dtype="float32"), f"s{i}") for i in range(10)],
        "dicts": [{"a": i, "b": [float(i), 2.0 * i]} for i in range(10)],
    }[form]
    ds = from_list(items)
    fresh = [tf.nest.map_structure(np.asarray, e) for e in ds]
    before, uninterrupted, restored = iterator_checkpoint(ctx, ds, consumed=4)
    check_elements(ctx, before + uninterrupted, fresh, "the saved run")
    check_elements(ctx, restored, fresh[4:], "after the restore")
