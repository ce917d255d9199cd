"""tf.experimental.numpy.clip: scalar and array bounds, dtypes, graph/XLA, gradient."""

import numpy as np
from tfhelp import bf16_round, by_mode

from portbench_runner.api import case


@case("float32-eager", dtype="float32")
@case("float64-graph", dtype="float64", mode="graph")
@case("int32-eager", dtype="int32")
@case("bfloat16-eager", dtype="bfloat16")
@case("float32-xla", dtype="float32", mode="xla")
@case("float32-large", dtype="float32", shape=(1_000_000,))
@case("float32-scalar", dtype="float32", shape=())
def clip_scalar_bounds(ctx, dtype, mode="eager", shape=(64, 64)):
    import tensorflow as tf

    tnp = tf.experimental.numpy
    if dtype == "int32":
        x = ctx.rng.integers(-100, 100, size=shape).astype("int32")
        lo, hi = -20, 30
    else:
        x = (ctx.rng.standard_normal(shape) * 3).astype("float32" if dtype == "bfloat16" else dtype)
        lo, hi = -1.5, 2.0
    ref_in = bf16_round(ctx, x) if dtype == "bfloat16" else x
    fn = by_mode(ctx, lambda t: tnp.clip(t, lo, hi), mode)
    out = ctx.measure(fn, ctx.put(x, dtype=dtype))
    if dtype == "int32":
        ctx.check_equal(out, np.clip(x, lo, hi))
    else:
        ctx.check_close(out, np.clip(ref_in.astype("float64"), lo, hi), dtype=dtype)


@case("array-bounds-broadcast")
def clip_array_bounds(ctx):
    import tensorflow as tf

    x = ctx.rng.standard_normal((16, 8)).astype("float32")
    lo = np.linspace(-1.0, 0.0, 8).astype("float32")
    hi = np.linspace(0.1, 1.0, 8).astype("float32")
    out = ctx.measure(tf.experimental.numpy.clip, ctx.put(x), ctx.put(lo), ctx.put(hi))
    ctx.check_close(out, np.clip(x, lo, hi).astype("float64"), dtype="float32")


@case("gradient-masks-clipped")
def clip_grad(ctx):
    import tensorflow as tf

    x_np = np.array([-3.0, -0.5, 0.0, 0.7, 4.0], dtype="float32")
    x = ctx.put(x_np)

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.experimental.numpy.clip(x, -1.0, 1.0))
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    ctx.check_close(out, np.array([0.0, 1.0, 1.0, 1.0, 0.0]), dtype="float32")
