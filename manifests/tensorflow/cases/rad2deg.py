"""tf.experimental.numpy.rad2deg: float32/64, bfloat16, integers promote, graph/XLA, gradient."""

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, bf16_round, by_mode

from portbench_runner.api import case, sweep


@case("float32-eager", dtype="float32")
@case("float64-graph", dtype="float64", mode="graph")
@case("bfloat16-eager", dtype="bfloat16")
@case("float32-xla", dtype="float32", mode="xla")
@case("float32-large", dtype="float32", shape=(1_000_000,))
@case("float32-scalar", dtype="float32", shape=())
def rad2deg_values(ctx, dtype, mode="eager", shape=(128,)):
    import tensorflow as tf

    x = ctx.rng.uniform(-7.0, 7.0, size=shape).astype("float32" if dtype == "bfloat16" else dtype)
    ref_in = bf16_round(ctx, x) if dtype == "bfloat16" else x.astype("float64")
    fn = by_mode(ctx, tf.experimental.numpy.rad2deg, mode)
    out = ctx.measure(fn, ctx.put(x, dtype=dtype))
    ctx.check_close(out, np.rad2deg(ref_in), dtype=dtype)


@case("int32-promotes-to-float")
def rad2deg_int(ctx):
    import tensorflow as tf

    x = np.array([0, 1, 3, -2], dtype="int32")
    out = ctx.measure(tf.experimental.numpy.rad2deg, ctx.put(x))
    ctx.check(out.dtype.is_floating, f"int32 input gave {out.dtype}, not a float", "type")
    ctx.check_close(out, np.rad2deg(x.astype("float64")), dtype=out.dtype.name)


@case("gradient-is-180-over-pi")
def rad2deg_grad(ctx):
    import tensorflow as tf

    x = ctx.put(ctx.rng.standard_normal(16).astype("float32"))

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.experimental.numpy.rad2deg(x))
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    ctx.check_close(out, np.full(16, 180.0 / np.pi), dtype="float32")


# Every dtype tnp.rad2deg takes on the CPU (integers promote to a float), eager, in a
# tf.function and under XLA, with its gradient in each float width; new names, so the
# cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8"],
    mode=MODES,
)
def rad2deg_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_swept, draw, placed

    x, exact = placed(ctx, draw(ctx, (257,), dtype, -7, 7), dtype)
    out = ctx.measure(by_mode(ctx, tf.experimental.numpy.rad2deg, mode), x)
    check_swept(ctx, out, np.rad2deg(exact.astype("float64")))


@sweep(
    "grad-{dtype}-{mode}-sweep",
    dtype=["bfloat16", "float32", "float64"],
    mode=MODES,
)
def rad2deg_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad

    swept_grad(
        ctx, tf.experimental.numpy.rad2deg, lambda x: np.full_like(x, 180 / np.pi), dtype, mode
    )


# The study's other kinds of paths: the documented error for a string input (exact type and
# message), the second derivative through nested GradientTapes of sum(rad2deg(x)**2)
# (2 (180/pi)**2) in float32 and float64, and tf.vectorized_map of rad2deg, eager, in a
# tf.function and under XLA. New names; the cases above keep their ids.
@case("error-string-input")
def rad2deg_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    s = tf.constant(["a"])
    check_raises(
        ctx, lambda: tf.experimental.numpy.rad2deg(s), TypeError, r"to EagerTensor of dtype string"
    )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def rad2deg_grad2(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad2

    swept_grad2(
        ctx,
        lambda t: tf.experimental.numpy.rad2deg(t) ** 2,
        lambda x: np.full_like(x, 2 * (180 / np.pi) ** 2),
        dtype,
        mode,
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def rad2deg_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(ctx, tf.experimental.numpy.rad2deg, np.rad2deg, "float32", mode)
