"""tf.Tensor.get_shape: static shapes of eager tensors, scalars, empties, unknown dims in graphs."""

import numpy as np
from tfhelp import EVERY_DTYPE, MODES, v1_graph

from portbench_runner.api import case, sweep


@case("matrix", shape=(3, 4))
@case("scalar", shape=())
@case("empty", shape=(0, 5))
@case("rank5", shape=(2, 1, 3, 1, 2))
@case("large", shape=(1000, 1000))
def shape_eager(ctx, shape):
    t = ctx.put(np.zeros(shape, dtype="float32"))
    out = ctx.measure(t.get_shape)
    ctx.check(out.as_list() == list(shape), f"get_shape() gave {out}, expected {shape}", "other")
    ctx.check(out == t.shape, "get_shape() differs from .shape", "other")


@case("unknown-batch-in-graph")
def shape_graph(ctx):
    import tensorflow as tf

    seen = []

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def fn(x):
        seen.append(x.get_shape().as_list())
        return tf.shape(x)

    out = ctx.measure(fn, ctx.put(np.zeros((5, 3), dtype="float32")))
    ctx.check(seen and seen[0] == [None, 3], f"static shape while tracing was {seen}", "other")
    ctx.check_equal(out, np.array([5, 3], dtype="int32"))


@case("v1-placeholder-partial")
def shape_v1(ctx):
    import tensorflow as tf

    with v1_graph(ctx):
        p = tf.compat.v1.placeholder(tf.float32, shape=(None, 4, None))
    out = ctx.measure(p.get_shape)
    ctx.check(out.as_list() == [None, 4, None], f"get_shape() gave {out}", "other")
    ctx.check(out.rank == 3 and not out.is_fully_defined(), f"rank/definedness of {out}", "other")


# The static shape of a tensor of every dtype, eager, while tracing a tf.function and
# while tracing for XLA (where static shapes are all XLA sees), rank 0 to 3 with an empty
# dimension; new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def shape_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import by_mode, draw_any

    shapes = [(), (4,), (2, 0, 3), (1, 5, 2)]
    tensors = [ctx.put(draw_any(ctx, s, dtype), dtype=dtype) for s in shapes]
    seen = []

    def static_shapes(*ts):
        seen.append([t.get_shape().as_list() for t in ts])
        return [tf.shape(t) for t in ts]

    outs = ctx.measure(by_mode(ctx, static_shapes, mode), *tensors)
    want = [list(s) for s in shapes]
    ctx.check(seen and seen[0] == want, f"get_shape() gave {seen[:1]}, expected {want}", "other")
    for out, s in zip(outs, shapes):
        ctx.check_equal(out, np.array(s, dtype="int32"))


@case("ragged-and-sparse")
def shape_composite(ctx):
    import tensorflow as tf

    rt = tf.ragged.constant([[1, 2], [3], []])
    st = tf.sparse.SparseTensor([[0, 1]], [1.0], [3, 4])
    out = ctx.measure(lambda: (rt.get_shape().as_list(), st.get_shape().as_list()))
    ctx.check(out == ([3, None], [3, 4]), f"ragged/sparse static shapes {out}", "other")


# The study's other kinds of paths for the TensorShape container get_shape returns: the
# documented errors (an index past the rank, as_list of an unknown rank, merging shapes
# that differ: exact type and message), and its index forms (an item, a negative item, a
# slice, a reversed slice: a TensorShape again) for a known shape and one with an unknown
# dimension in a tf.function. New names; the cases above keep their ids.
@sweep("error-{form}", form=["index-past-rank", "as-list-unknown-rank", "merge-incompatible"])
def shape_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    shape = ctx.put(np.zeros((2, 3), dtype="float32")).get_shape()
    call, exc, pattern = {
        "index-past-rank": (lambda: shape[5], IndexError, r"tuple index out of range"),
        "as-list-unknown-rank": (
            lambda: tf.TensorShape(None).as_list(),
            ValueError,
            r"as_list\(\) is not defined on an unknown TensorShape",
        ),
        "merge-incompatible": (
            lambda: shape.merge_with(tf.TensorShape([2, 4])),
            ValueError,
            r"Shapes \(2, 3\) and \(2, 4\) are not compatible",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)


@sweep(
    "index-{form}-{known}-sweep",
    form=["item", "negative-item", "slice", "reversed-slice"],
    known=["known", "unknown-dim"],
)
def shape_index_forms(ctx, form, known):
    import tensorflow as tf

    dims = [2, None, 4, 5] if known == "unknown-dim" else [2, 3, 4, 5]
    seen = []

    def look(t):
        shape = t.get_shape()
        seen.append(
            {
                "item": shape[1],
                "negative-item": shape[-1],
                "slice": shape[1:3],
                "reversed-slice": shape[::-1],
            }[form]
        )
        return t

    spec = tf.TensorSpec(dims, tf.float32)
    fn = tf.function(look, input_signature=[spec])
    ctx.measure(fn, ctx.put(np.zeros((2, 3, 4, 5), dtype="float32")), warm=False)
    got = seen[0]
    expected = {
        "item": dims[1],
        "negative-item": dims[-1],
        "slice": dims[1:3],
        "reversed-slice": dims[::-1],
    }[form]
    if isinstance(expected, list):
        ctx.check(
            isinstance(got, tf.TensorShape) and got.as_list() == expected,
            f"{form} gave {got!r}, expected {expected}",
            "other",
        )
    else:
        ctx.check(got == expected, f"{form} gave {got!r}, expected {expected}", "other")
