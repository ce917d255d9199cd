"""tf.compat.v1.distributions.Normal.param_shapes: the loc/scale shapes that give a sample shape."""

import numpy as np
from tfhelp import v1_graph, v1_session

from portbench_runner.api import case

NAME = "tensorflow.compat.v1.distributions.Normal.param_shapes"


@case("list-shape", sample_shape=[5, 3])
@case("scalar-shape", sample_shape=[])
@case("rank4-shape", sample_shape=[2, 1, 7, 4])
def from_list(ctx, sample_shape):
    param_shapes = ctx.require(NAME)
    out = ctx.measure(param_shapes, sample_shape)
    ctx.check(sorted(out) == ["loc", "scale"], f"keys {sorted(out)}", "other")
    ctx.check_equal(out["loc"], np.array(sample_shape, dtype="int32"), what="loc shape")
    ctx.check_equal(out["scale"], np.array(sample_shape, dtype="int32"), what="scale shape")


@case("tensor-shape-input")
def from_tensor(ctx):

    param_shapes = ctx.require(NAME)
    out = ctx.measure(param_shapes, ctx.put(np.array([4, 6], dtype="int32")))
    ctx.check_equal(out["loc"], np.array([4, 6], dtype="int32"))


@case("shapes-build-matching-distribution")
def builds(ctx):
    import tensorflow as tf

    normal = ctx.require("tensorflow.compat.v1.distributions.Normal")
    shapes = ctx.measure(normal.param_shapes, [3, 2])
    dist = normal(loc=tf.zeros(shapes["loc"]), scale=tf.ones(shapes["scale"]))
    ctx.check(
        dist.sample().shape.as_list() == [3, 2], f"sample shape {dist.sample().shape}", "other"
    )


@case("tf1-graph")
def graph(ctx):
    import tensorflow as tf

    param_shapes = ctx.require(NAME)
    with v1_graph(ctx) as graph:
        p = tf.compat.v1.placeholder(tf.int32, [2])
        shapes = param_shapes(p)
    with v1_session(graph) as sess:
        out = ctx.measure(sess.run, shapes, {p: [8, 9]})
    ctx.check_equal(out["scale"], np.array([8, 9], dtype="int32"))
