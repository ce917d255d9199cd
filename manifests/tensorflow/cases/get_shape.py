"""tf.Tensor.get_shape: static shapes of eager tensors, scalars, empties, unknown dims in graphs."""

import numpy as np
from tfhelp import v1_graph

from portbench_runner.api import case


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
