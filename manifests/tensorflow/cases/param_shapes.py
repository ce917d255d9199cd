"""tf.compat.v1.distributions.Normal.param_shapes: the loc/scale shapes that give a sample shape."""

import numpy as np
from tfhelp import MODES, by_mode, v1_graph, v1_session

from portbench_runner.api import case, sweep

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


# The sample-shape forms param_shapes takes (a list, a tuple, a TensorShape, an int32
# tensor), called eagerly, inside a tf.function and under XLA; an int64 shape tensor is
# refused (it converts to int32), asserted below. New names, so the cases above keep ids.
@sweep("{form}-{mode}-sweep", form=["list", "tuple", "tensorshape", "int32-tensor"], mode=MODES)
def forms(ctx, form, mode):
    import tensorflow as tf

    param_shapes = ctx.require(NAME)
    dims = [3, 1, 4]
    shape = {
        "list": dims,
        "tuple": tuple(dims),
        "tensorshape": tf.TensorShape(dims),
        "int32-tensor": None,
    }[form]
    if shape is None:
        fn = by_mode(ctx, param_shapes, mode)
        out = ctx.measure(fn, ctx.put(np.array(dims, dtype="int32")))
    else:
        out = ctx.measure(by_mode(ctx, lambda: param_shapes(shape), mode))
    ctx.check(sorted(out) == ["loc", "scale"], f"keys {sorted(out)}", "other")
    for key in ("loc", "scale"):
        ctx.check(out[key].dtype == tf.int32, f"{key} dtype {out[key].dtype}", "type")
        ctx.check_equal(out[key], np.array(dims, dtype="int32"), what=f"{key} shape")


@case("int64-tensor-refused")
def int64_refused(ctx):
    from tfhelp import raises

    param_shapes = ctx.require(NAME)
    shape = ctx.put(np.array([2, 3], dtype="int64"))
    out = ctx.measure(raises(lambda: param_shapes(shape), ValueError, TypeError))
    ctx.check(out is not None, "an int64 sample shape was taken as is", "other")


# The study's other kind of path here: the documented errors for sample shapes of a dtype
# other than int32 (int64, float: exact type and message). New names; the cases above keep
# their ids.
@sweep("error-{form}", form=["int64-tensor", "float-tensor"])
def param_shapes_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    normal = tf.compat.v1.distributions.Normal
    dtype = tf.int64 if form == "int64-tensor" else tf.float32
    shape = tf.constant([2, 3], dtype)
    check_raises(
        ctx,
        lambda: normal.param_shapes(shape),
        ValueError,
        rf"Tensor conversion requested dtype int32 for Tensor with dtype {dtype.name}",
    )
