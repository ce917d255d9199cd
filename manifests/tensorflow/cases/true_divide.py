"""tf.math.truediv: float division, integer inputs promoted to float, broadcasting, /0, graph/XLA, gradient."""

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, bf16_round, by_mode

from portbench_runner.api import case, sweep


@case("float32-eager", dtype="float32")
@case("float64-graph", dtype="float64", mode="graph")
@case("bfloat16-eager", dtype="bfloat16")
@case("float32-xla", dtype="float32", mode="xla")
@case("float32-large", dtype="float32", shape=(1_000_000,))
@case("float32-scalar", dtype="float32", shape=())
def truediv_float(ctx, dtype, mode="eager", shape=(64, 32)):
    import tensorflow as tf

    npdt = "float32" if dtype == "bfloat16" else dtype
    x = ctx.rng.standard_normal(shape).astype(npdt)
    y = ctx.rng.uniform(0.5, 3.0, size=shape).astype(npdt)
    if dtype == "bfloat16":
        xr, yr = bf16_round(ctx, x), bf16_round(ctx, y)
    else:
        xr, yr = x.astype("float64"), y.astype("float64")
    fn = by_mode(ctx, tf.math.truediv, mode)
    out = ctx.measure(fn, ctx.put(x, dtype=dtype), ctx.put(y, dtype=dtype))
    ctx.check_close(out, xr / yr, dtype=dtype)


@case("int32-gives-float64", src="int32", dst="float64")
@case("int16-gives-float32", src="int16", dst="float32")
@case("uint8-gives-float32", src="uint8", dst="float32")
def truediv_int(ctx, src, dst):
    import tensorflow as tf

    x = ctx.rng.integers(0, 100, size=(50,)).astype(src)
    y = ctx.rng.integers(1, 9, size=(50,)).astype(src)
    out = ctx.measure(tf.math.truediv, ctx.put(x), ctx.put(y))
    ctx.check(
        out.dtype.name == dst, f"{src} / {src} gave {out.dtype.name}, documented {dst}", "type"
    )
    ctx.check_close(out, x.astype("float64") / y, dtype=dst)


@case("broadcast-and-divide-by-zero")
def truediv_broadcast(ctx):
    import tensorflow as tf

    x = np.array([[1.0], [-2.0], [0.0]], dtype="float32")
    y = np.array([0.0, 2.0, 4.0], dtype="float32")
    out = ctx.measure(tf.math.truediv, ctx.put(x), ctx.put(y))
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = x.astype("float64") / y
    ctx.check_close(out, expected, dtype="float32")


@case("gradient-both-operands")
def truediv_grad(ctx):
    import tensorflow as tf

    x_np = ctx.rng.standard_normal(8)
    y_np = ctx.rng.uniform(1.0, 2.0, size=8)
    x, y = ctx.put(x_np), ctx.put(y_np)

    def grads():
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            z = tf.reduce_sum(tf.math.truediv(x, y))
        return tape.gradient(z, [x, y])

    gx, gy = ctx.measure(grads)
    ctx.check_close(gx, 1.0 / y_np, dtype="float64", what="d/dx")
    ctx.check_close(gy, -x_np / y_np**2, dtype="float64", what="d/dy")


# Every dtype truediv takes on the CPU (integers give a float), eager, in a tf.function and
# under XLA, with a broadcast row and its gradient; new names, so the cases above keep
# their ids.
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
def truediv_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import INTS, check_swept, draw, placed

    ints = dtype in INTS
    a, a_exact = placed(
        ctx, draw(ctx, (16, 24), dtype, -20 if ints else -3, 20 if ints else 3), dtype
    )
    b, b_exact = placed(ctx, draw(ctx, (24,), dtype, 1 if ints else 0.5, 9 if ints else 3), dtype)
    out = ctx.measure(by_mode(ctx, tf.math.truediv, mode), a, b)
    # truediv's documented result: 8- and 16-bit integers in float32, 32- and 64-bit ones
    # in float64, floats and complex in their own dtype.
    want = {"int8": "float32", "int16": "float32", "uint8": "float32"}.get(dtype, dtype)
    want = {"int32": "float64", "int64": "float64"}.get(want, want)
    check_swept(
        ctx,
        out,
        a_exact.astype("complex128" if "complex" in dtype else "float64") / b_exact,
        dtype=want,
    )


@sweep(
    "grad-{dtype}-{mode}-sweep",
    dtype=["bfloat16", "float32", "float64"],
    mode=MODES,
)
def truediv_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad

    swept_grad(
        ctx,
        lambda t: tf.math.truediv(1.0 + 0 * t, t),
        lambda x: -1 / x**2,
        dtype,
        mode,
        lo=0.5,
        hi=3,
        scale=2.0,
    )


# The study's other kinds of paths: the documented errors for bad operands (different float
# dtypes, strings, shapes that do not broadcast: exact type and message), the second
# derivative in the divisor through nested GradientTapes (d2/dy2 of x / y is 2x / y**3) in
# float32 and float64, and tf.vectorized_map of a division, eager, in a tf.function and
# under XLA. New names; the cases above keep their ids.
@sweep("error-{form}", form=["mixed-dtypes", "strings", "shapes-do-not-broadcast"])
def truediv_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    f32 = ctx.put(np.ones(2, dtype="float32"))
    if form == "mixed-dtypes":
        f64 = ctx.put(np.ones(2, dtype="float64"))
        check_raises(
            ctx,
            lambda: tf.math.truediv(f32, f64),
            TypeError,
            r"`x` and `y` must have the same dtype",
        )
    elif form == "strings":
        s = tf.constant(["a"])
        check_raises(
            ctx,
            lambda: tf.math.truediv(s, s),
            TypeError,
            r"Invalid dtype tf\.string in __truediv__",
        )
    else:
        f3 = ctx.put(np.ones(3, dtype="float32"))
        check_raises(
            ctx,
            lambda: tf.math.truediv(f32, f3),
            tf.errors.InvalidArgumentError,
            r"Incompatible shapes: \[2\] vs\. \[3\]",
        )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def truediv_grad2(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad2

    swept_grad2(
        ctx,
        lambda t: tf.math.truediv(tf.constant(1.5, t.dtype), t),
        lambda y: 3.0 / y**3,
        dtype,
        mode,
        lo=0.5,
        hi=3.0,
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def truediv_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx, lambda t: tf.math.truediv(t, t[0] + 4.0), lambda x: x / (x[0] + 4.0), "float32", mode
    )
