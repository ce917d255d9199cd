"""tf.Variable: creation from values, dtypes, assign ops, reads in tf.function/XLA, gradients."""

import numpy as np
from tfhelp import by_mode, raises

from portbench_runner.api import case


@case("float32-matrix", dtype="float32", shape=(32, 32))
@case("float64-vector", dtype="float64", shape=(100,))
@case("int32-scalar", dtype="int32", shape=())
@case("bool-vector", dtype="bool", shape=(5,))
@case("bfloat16-vector", dtype="bfloat16", shape=(16,))
@case("float32-large", dtype="float32", shape=(1000, 1000))
def create(ctx, dtype, shape):
    import tensorflow as tf

    x = ctx.rng.standard_normal(shape) * 10
    x = x > 0 if dtype == "bool" else x.astype("float32" if dtype == "bfloat16" else dtype)
    init = ctx.put(x, dtype=dtype)
    out = ctx.measure(tf.Variable, init)
    ctx.check(
        out.dtype == getattr(tf, dtype) and out.trainable,
        f"{out.dtype}, trainable={out.trainable}",
        "type",
    )
    ctx.check_equal(out, ctx.to_numpy(init))


@case("assign-ops")
def assign(ctx):
    import tensorflow as tf

    v = tf.Variable(np.array([1.0, 2.0, 3.0], dtype="float32"))

    def update():
        v.assign_add([1.0, 1.0, 1.0])
        v.assign_sub([0.5, 0.5, 0.5])
        return v.scatter_nd_update([[1]], [10.0])

    ctx.measure(update, warm=False)
    ctx.check_equal(v, np.array([1.5, 10.0, 3.5], dtype="float32"))


@case("read-in-graph", mode="graph")
@case("update-in-xla", mode="xla")
def in_function(ctx, mode):
    import tensorflow as tf

    v = tf.Variable(np.ones((4, 4), dtype="float32"))

    def step(x):
        v.assign(v * 2.0 + x)
        return v.read_value()

    fn = by_mode(ctx, step, mode)
    out = ctx.measure(fn, ctx.put(np.full((4, 4), 0.5, dtype="float32")), warm=False)
    ctx.check_equal(out, np.full((4, 4), 2.5, dtype="float32"))


@case("gradient-trainable-only")
def gradient(ctx):
    import tensorflow as tf

    w = tf.Variable(np.array([2.0, -1.0]))
    frozen = tf.Variable(np.array([3.0, 3.0]), trainable=False)

    def grads():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(w * w * frozen)
        return tape.gradient(y, [w, frozen])

    gw, gf = ctx.measure(grads)
    ctx.check_close(gw, 2 * np.array([2.0, -1.0]) * 3.0, dtype="float64")
    ctx.check(gf is None, "a non-trainable variable got a gradient without being watched", "other")


@case("shape-mismatch-assign-raises")
def bad_assign(ctx):
    import tensorflow as tf

    v = tf.Variable(np.zeros(3, dtype="float32"))
    out = ctx.measure(
        raises(
            lambda: v.assign(np.zeros(4, dtype="float32")),
            ValueError,
            tf.errors.InvalidArgumentError,
        )
    )
    ctx.check(out is not None, "assigning 4 values to a 3-vector raised nothing", "other")
