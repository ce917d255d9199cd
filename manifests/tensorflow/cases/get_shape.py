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
