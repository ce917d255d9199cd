"""tf.image.adjust_brightness: adds delta in float; uint8 images saturate; eager, graph, XLA."""

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, REAL_FLOATS, SIGNED_INTS, UNSIGNED_INTS, bf16_round, by_mode

from portbench_runner.api import case, sweep

#: bfloat16 keeps 8 significant bits: rounding to it moves a value by at most 2**-8 of itself.
BF16_ROUNDING = 2.0**-8


@case("float32-eager", dtype="float32")
@case("float64-graph", dtype="float64", mode="graph")
@case("bfloat16-eager", dtype="bfloat16")
@case("float32-xla", dtype="float32", mode="xla")
@case("float32-large", dtype="float32", shape=(1, 512, 682, 3))
@case("float32-negative-delta", dtype="float32", delta=-0.3)
def brightness_float(ctx, dtype, mode="eager", shape=(2, 16, 16, 3), delta=0.25):
    import tensorflow as tf

    x = ctx.rng.uniform(0.0, 1.0, size=shape).astype("float32" if dtype == "bfloat16" else dtype)
    ref_in = bf16_round(ctx, x) if dtype == "bfloat16" else x.astype("float64")
    fn = by_mode(ctx, lambda t: tf.image.adjust_brightness(t, delta), mode)
    out = ctx.measure(fn, ctx.put(x, dtype=dtype))
    if dtype == "bfloat16":  # only the output's rounding (see brightness_dtypes)
        ctx.check_close(out, ref_in + delta, rtol=BF16_ROUNDING, atol=BF16_ROUNDING * abs(delta))
    else:
        ctx.check_close(out, ref_in + delta, dtype=dtype)


@case("uint8-saturates")
def brightness_uint8(ctx):
    import tensorflow as tf

    x = ctx.rng.integers(0, 256, size=(4, 8, 8, 3)).astype("uint8")
    out = ctx.measure(tf.image.adjust_brightness, ctx.put(x), 0.2)
    # uint8 goes to [0, 1] float, gets +0.2, is clipped and scaled back with rounding.
    expected = np.clip(x / 255.0 + 0.2, 0.0, 1.0) * 255.0
    actual = ctx.to_numpy(out).astype("float64")
    ctx.check(out.dtype == tf.uint8, f"dtype {out.dtype} is not uint8", category="type")
    ctx.check_close(actual, expected, rtol=0.0, atol=1.0)


@case("gradient-is-one")
def brightness_grad(ctx):
    import tensorflow as tf

    x = ctx.put(ctx.rng.uniform(0.0, 1.0, size=(2, 4, 4, 3)).astype("float32"))

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.image.adjust_brightness(x, 0.1) * 2.0)
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    ctx.check_close(out, np.full((2, 4, 4, 3), 2.0), dtype="float32")


# Every dtype adjust_brightness takes on the CPU (the real floats and every integer width;
# complex and bool are refused), eager, in a tf.function and under XLA; new names, so the
# cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=REAL_FLOATS + SIGNED_INTS + UNSIGNED_INTS, mode=MODES)
def brightness_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype, check_swept, placed

    delta = 0.2
    shape = (2, 5, 7, 3)
    if dtype in REAL_FLOATS:
        x, exact = placed(
            ctx,
            ctx.rng.uniform(0.0, 1.0, size=shape).astype(
                "float32" if dtype == "bfloat16" else dtype
            ),
            dtype,
        )
    else:
        # Integer images span [0, dtype max]: drawn as fractions of the maximum.
        top = float(np.iinfo(dtype).max)
        x, exact = placed(ctx, (ctx.rng.uniform(0.0, 1.0, size=shape) * top).astype(dtype), dtype)
    out = ctx.measure(by_mode(ctx, lambda t: tf.image.adjust_brightness(t, delta), mode), x)
    check_dtype(ctx, out, dtype)
    if dtype in ("float16", "float32"):
        # These two add delta in their own dtype.
        check_swept(ctx, out, exact + delta)
    elif dtype == "float64":
        # Other floats are converted to float32, shifted, and converted back.
        expected = (exact.astype("float32") + np.float32(delta)).astype("float64")
        check_swept(ctx, out, expected, scale=2.0)
    elif dtype == "bfloat16":
        # Converted to float32, shifted, converted back: the output is the float32 sum of the
        # bfloat16 input and delta, rounded to bfloat16's 8 significant bits (a relative error
        # of at most 2**-8). A kernel that adds in bfloat16 also rounds delta (at most
        # 2**-8 * delta more). Nothing else is allowed: a delta wrong by 0.005 fails.
        expected = (exact.astype("float32") + np.float32(delta)).astype("float64")
        ctx.check_close(out, expected, rtol=BF16_ROUNDING, atol=BF16_ROUNDING * delta)
    else:
        # Integers go to [0, 1] float32, get +delta, saturate at 1 and scale back (with
        # truncation): within one unit plus float32 rounding of the dtype's range.
        top = float(np.iinfo(dtype).max)
        expected = np.minimum(exact.astype("float64") / top + delta, 1.0) * top
        actual = ctx.to_numpy(out).astype("float64")
        ctx.check_close(actual, expected, rtol=0.0, atol=1.0 + 3e-7 * top)


# The gradient is the identity in every float dtype (the shift does not depend on x).
@sweep("grad-{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def brightness_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad

    swept_grad(
        ctx,
        lambda t: tf.image.adjust_brightness(t, 0.2),
        np.ones_like,
        dtype,
        mode,
        lo=0.0,
        hi=1.0,
        shape=(2, 4, 4, 3),
    )


@case("float32-empty-batch")
def brightness_empty(ctx):
    import tensorflow as tf

    out = ctx.measure(tf.image.adjust_brightness, ctx.put(np.zeros((0, 4, 4, 3), "float32")), 0.5)
    ctx.check(tuple(out.shape) == (0, 4, 4, 3), f"shape {tuple(out.shape)}", "other")


# The study's other kinds of paths: the documented error for a delta that is not a scalar
# (exact type and message), the second derivative through nested GradientTapes of
# sum(adjust_brightness(x)**3) (6 (x + delta)) in float32 and float64, and tf.vectorized_map
# over a batch of images, eager, in a tf.function and under XLA. New names; the cases above
# keep their ids.
@case("error-vector-delta")
def brightness_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    x = ctx.put(np.ones((2, 2, 3), dtype="float32"))
    check_raises(
        ctx,
        lambda: tf.image.adjust_brightness(x, [0.1, 0.2]),
        tf.errors.InvalidArgumentError,
        r"Incompatible shapes: \[2,2,3\] vs\. \[2\]",
    )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def brightness_grad2(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad2

    # A float64 image is shifted in float32 (see brightness_dtypes): x + delta carries
    # float32's rounding (about 1e-7 of it) into every derivative.
    scale = 1e6 if dtype == "float64" else 1.0
    swept_grad2(
        ctx,
        lambda t: tf.image.adjust_brightness(t, 0.2) ** 3,
        lambda x: 6 * (x + 0.2),
        dtype,
        mode,
        lo=0.0,
        hi=1.0,
        scale=scale,
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def brightness_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx,
        lambda t: tf.image.adjust_brightness(t, 0.25),
        lambda x: x + 0.25,
        "float32",
        mode,
        shape=(4, 5, 6, 3),
        lo=0.0,
        hi=1.0,
    )
