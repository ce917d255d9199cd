"""tf.experimental.numpy.clip: scalar and array bounds, dtypes, graph/XLA, gradient."""

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, bf16_round, by_mode

from portbench_runner.api import case, sweep


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


# Every ordered dtype tnp.clip takes on the CPU (a clip is exact), eager, in a tf.function
# and under XLA; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8"],
    mode=MODES,
)
def clip_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_swept, draw, placed

    x, exact = placed(ctx, draw(ctx, (257,), dtype, -9, 9), dtype)
    out = ctx.measure(by_mode(ctx, lambda t: tf.experimental.numpy.clip(t, 2, 6), mode), x)
    check_swept(ctx, out, np.clip(exact, 2, 6))


# The study's other kinds of paths: the documented error for two absent bounds (exact type
# and message), the full grid of the bounds' forms (each absent, a scalar or a broadcast
# array; not both absent), the second derivative through nested GradientTapes of
# sum(clip(x)**3) (6x inside the bounds, 0 where clipped) in float32 and float64, and
# tf.vectorized_map of a clip, eager, in a tf.function and under XLA. New names; the cases
# above keep their ids.
@case("error-no-bounds")
def clip_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    x = ctx.put(np.ones(3, dtype="float32"))
    check_raises(
        ctx,
        lambda: tf.experimental.numpy.clip(x, None, None),
        ValueError,
        r"Not more than one of `a_min` and `a_max` may be `None`",
    )


@sweep(
    "flags-min-{lo}-max-{hi}-sweep",
    lo=["none", "scalar", "array"],
    hi=["none", "scalar", "array"],
    exclude=[{"lo": "none", "hi": "none"}],
)
def clip_flags(ctx, lo, hi):
    import tensorflow as tf

    x = ctx.rng.uniform(-3, 3, (4, 6)).astype("float32")
    lows = {"none": None, "scalar": -1.0, "array": ctx.rng.uniform(-2, 0, (6,)).astype("float32")}
    highs = {"none": None, "scalar": 1.5, "array": ctx.rng.uniform(0, 2, (4, 1)).astype("float32")}
    a, b = lows[lo], highs[hi]
    out = ctx.measure(lambda t: tf.experimental.numpy.clip(t, a, b), ctx.put(x))
    ctx.check_close(out, np.clip(x, a, b), dtype="float32")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def clip_grad2(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad2

    swept_grad2(
        ctx,
        lambda t: tf.experimental.numpy.clip(t, -1.0, 1.5) ** 3,
        lambda x: np.where((x > -1.0) & (x < 1.5), 6 * x, 0.0),
        dtype,
        mode,
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def clip_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx,
        lambda t: tf.experimental.numpy.clip(t, -1.0, 1.5),
        lambda x: np.clip(x, -1.0, 1.5),
        "float32",
        mode,
    )
