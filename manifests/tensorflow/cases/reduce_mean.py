"""tf.math.reduce_mean: axes, keepdims, integer truncation, bfloat16, empty, large, graph/XLA, gradient."""

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, bf16_round, by_mode

from portbench_runner.api import case, sweep


@case("float32-all", dtype="float32", axis=None)
@case("float64-axis0-graph", dtype="float64", axis=0, mode="graph")
@case("float32-axis-tuple-keepdims", dtype="float32", axis=(0, 2), keepdims=True, shape=(8, 6, 10))
@case("bfloat16-axis1", dtype="bfloat16", axis=1)
@case("float32-xla", dtype="float32", axis=1, mode="xla")
@case("float32-large", dtype="float32", axis=None, shape=(1000, 1000))
def mean_values(ctx, dtype, axis, mode="eager", keepdims=False, shape=(64, 128)):
    import tensorflow as tf

    x = (ctx.rng.standard_normal(shape) + 1.0).astype("float32" if dtype == "bfloat16" else dtype)
    ref_in = bf16_round(ctx, x) if dtype == "bfloat16" else x.astype("float64")
    fn = by_mode(ctx, lambda t: tf.math.reduce_mean(t, axis=axis, keepdims=keepdims), mode)
    out = ctx.measure(fn, ctx.put(x, dtype=dtype))
    rtol = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 3e-2}[dtype]
    ctx.check_close(out, ref_in.mean(axis=axis, keepdims=keepdims), rtol=rtol, atol=rtol)


@case("int32-truncates")
def mean_int(ctx):
    import tensorflow as tf

    x = np.array([[1, 2], [4, 4], [-3, -4]], dtype="int32")
    out = ctx.measure(tf.math.reduce_mean, ctx.put(x), axis=1)
    # Integer means are computed in the integer dtype: the sum divided with truncation.
    ctx.check_equal(out, np.array([1, 4, -3], dtype="int32"))


@case("empty-is-nan")
def mean_empty(ctx):
    import tensorflow as tf

    out = ctx.measure(tf.math.reduce_mean, ctx.put(np.zeros((0, 3), dtype="float32")), axis=0)
    ctx.check_close(out, np.full(3, np.nan), dtype="float32")


@case("gradient-is-one-over-n")
def mean_grad(ctx):
    import tensorflow as tf

    x = ctx.put(ctx.rng.standard_normal((5, 8)).astype("float32"))

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.math.reduce_mean(x, axis=1)
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    ctx.check_close(out, np.full((5, 8), 1.0 / 8), dtype="float32")


# Every dtype reduce_mean takes on the CPU, eager, in a tf.function and under XLA, over an
# axis of 32; integers average in their own dtype and truncate (inputs 0..3, so an int8 sum
# cannot wrap); new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=[
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
    ],
    mode=MODES,
)
def mean_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import INTS, check_swept, draw, placed

    x, exact = placed(ctx, draw(ctx, (16, 32), dtype, 0 if dtype in INTS else -3, 4), dtype)
    out = ctx.measure(by_mode(ctx, lambda t: tf.math.reduce_mean(t, axis=1), mode), x)
    if dtype in INTS:
        expected = np.sum(exact.astype("int64"), axis=1) // 32
    else:
        expected = np.mean(exact, axis=1)
    # reduce_mean keeps the input's dtype (integers divide as integers).
    check_swept(ctx, out, expected, scale=8.0, dtype=dtype)


@sweep(
    "grad-{dtype}-{mode}-sweep",
    dtype=["bfloat16", "float32", "float64"],
    mode=MODES,
)
def mean_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad

    swept_grad(ctx, lambda t: tf.math.reduce_mean(t * t), lambda x: 2 * x / x.size, dtype, mode)


# The study's other kinds of paths: the documented errors for bad arguments (an axis out of
# range, strings: exact type and message), the full grid of axis x keepdims, the Hessian
# through nested GradientTapes of mean(x)**2 (2/n**2 everywhere) in float32 and float64,
# and tf.vectorized_map of a row's mean, eager, in a tf.function and under XLA. New names;
# the cases above keep their ids.
@sweep("error-{form}", form=["axis-out-of-range", "string-input"])
def mean_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "axis-out-of-range":
        x = ctx.put(np.ones((3, 4), dtype="float32"))
        check_raises(
            ctx,
            lambda: tf.math.reduce_mean(x, axis=2),
            tf.errors.InvalidArgumentError,
            r"Invalid reduction dimension \(2 for input with 2 dimension",
        )
    else:
        s = tf.constant(["a"])
        check_raises(
            ctx,
            lambda: tf.math.reduce_mean(s),
            tf.errors.InvalidArgumentError,
            r"Value for attr 'T' of string is not in the list of allowed values",
        )


@sweep(
    "flags-axis-{axis}-{keepdims}-sweep", axis=["all", "0", "1", "both"], keepdims=["keep", "drop"]
)
def mean_flags(ctx, axis, keepdims):
    import tensorflow as tf
    from tfhelp import reduction_flags

    reduction_flags(ctx, tf.math.reduce_mean, np.mean, axis, keepdims)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def mean_hessian(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_hessian

    swept_hessian(
        ctx,
        lambda t: tf.math.reduce_mean(t) ** 2,
        lambda x: np.full((x.size, x.size), 2.0 / x.size**2),
        dtype,
        mode,
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def mean_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx,
        lambda t: tf.math.reduce_mean(t, axis=-1),
        lambda x: np.mean(x, axis=-1),
        "float32",
        mode,
        scale=4.0,
    )
