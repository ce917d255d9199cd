"""tf.TensorArray.concat: elements of different lengths joined along axis 0; eager, graph and XLA loops."""

import numpy as np
from tfhelp import by_mode

from portbench_runner.api import case


@case("float32-ragged-rows", dtype="float32", lengths=[3, 1, 4, 2])
@case("float64-equal-rows", dtype="float64", lengths=[5, 5, 5])
@case("int32-with-empty", dtype="int32", lengths=[2, 0, 3])
@case("float32-large", dtype="float32", lengths=[250_000] * 4)
def eager(ctx, dtype, lengths):
    import tensorflow as tf

    parts = [(ctx.rng.standard_normal((n, 3)) * 10).astype(dtype) for n in lengths]
    ta = tf.TensorArray(getattr(tf, dtype), size=len(parts), infer_shape=False)
    for i, p in enumerate(parts):
        ta = ta.write(i, ctx.put(p))
    out = ctx.measure(ta.concat)
    ctx.check_equal(out, np.concatenate(parts))


@case("loop-graph", mode="graph")
@case("loop-xla", mode="xla")
def in_loop(ctx, mode):
    import tensorflow as tf

    def fn(x):
        ta = tf.TensorArray(tf.float32, size=4, element_shape=[2])
        for i in tf.range(4):
            ta = ta.write(i, x * tf.cast(i, tf.float32))
        return ta.concat()

    out = ctx.measure(by_mode(ctx, fn, mode), ctx.put(np.array([1.0, 2.0], dtype="float32")))
    ctx.check_equal(
        out, np.concatenate([np.array([1.0, 2.0], dtype="float32") * i for i in range(4)])
    )


@case("gradient-through-concat")
def gradient(ctx):
    import tensorflow as tf

    x = ctx.put(np.array([1.0, 2.0, 3.0], dtype="float32"))

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)
            ta = ta.write(0, x * 2.0).write(1, x[:2] * 5.0)
            y = tf.reduce_sum(ta.concat())
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    ctx.check_close(out, np.array([7.0, 7.0, 2.0]), dtype="float32")
