"""tf.cast: conversions between float, integer, bool and bfloat16; eager, graph and XLA; gradients."""

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, by_mode

from portbench_runner.api import case, sweep


@case("float32-to-int32-eager", src="float32", dst="int32")
@case("float64-to-float32-graph", src="float64", dst="float32", mode="graph")
@case("float32-to-bfloat16-xla", src="float32", dst="bfloat16", mode="xla")
@case("int64-to-float64-eager", src="int64", dst="float64")
@case("float32-to-bool-eager", src="float32", dst="bool")
@case("float32-large-to-float16", src="float32", dst="float16", shape=(1_000_000,))
@case("float32-scalar-to-int8", src="float32", dst="int8", shape=())
@case("float32-empty-to-int64", src="float32", dst="int64", shape=(0, 3))
def cast_values(ctx, src, dst, mode="eager", shape=(64, 64)):
    import tensorflow as tf

    x = np.asarray(ctx.rng.standard_normal(shape) * 50).astype(src)
    if dst == "int8":
        x = np.asarray(ctx.rng.uniform(-100, 100, size=shape)).astype(src)
    if src == "float32" and dst == "bool" and x.size:
        x[::3] = 0.0
    fn = by_mode(ctx, lambda t: tf.cast(t, getattr(tf, dst)), mode)
    out = ctx.measure(fn, ctx.put(x))
    if dst in ("int32", "int8", "int64"):
        # C-style truncation toward zero for float -> int (values chosen in range).
        ctx.check_equal(out, np.trunc(x).astype(dst))
    elif dst == "bool":
        ctx.check_equal(out, x != 0)
    elif dst == "bfloat16":
        ctx.check_close(out, x.astype("float64"), dtype="bfloat16", rtol=8e-3)
    else:
        ctx.check_close(out, x.astype(dst).astype("float64"), dtype=dst)


@case("bool-to-float32")
def cast_bool(ctx):
    import tensorflow as tf

    x = np.array([True, False, True])
    out = ctx.measure(tf.cast, ctx.put(x), tf.float32)
    ctx.check_equal(out, np.array([1.0, 0.0, 1.0], dtype="float32"))


@case("gradient-through-cast")
def cast_gradient(ctx):
    import tensorflow as tf

    x = ctx.put(ctx.rng.standard_normal((32,)).astype("float32"))

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.cast(x, tf.float64) * 3.0)
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    ctx.check_close(out, np.full(32, 3.0), dtype="float32")


# Each dtype tf.cast takes, to float32 and from float32, eager, in a tf.function and under
# XLA (values 0..100, so integer widths and float16 hold them; floats truncate toward zero
# into integers, any nonzero is True; complex drops its imaginary part); new names, so the
# cases above keep their ids.
@sweep(
    "{other}-to-float32-{mode}-sweep",
    other=[
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "bfloat16",
        "float64",
        "complex64",
        "complex128",
    ],
    mode=MODES,
    to_float32=True,
)
@sweep(
    "float32-to-{other}-{mode}-sweep",
    other=[
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "bfloat16",
        "float64",
        "complex64",
        "complex128",
    ],
    mode=MODES,
    to_float32=False,
)
def cast_dtypes(ctx, other, mode, to_float32):
    import tensorflow as tf
    from tfhelp import INTS, check_swept, draw, placed

    src, dst = (other, "float32") if to_float32 else ("float32", other)
    x, exact = placed(ctx, draw(ctx, (257,), src, 0, 100), src)
    out = ctx.measure(by_mode(ctx, lambda t: tf.cast(t, getattr(tf, dst)), mode), x)
    ctx.check(out.dtype.name == dst, f"dtype {out.dtype.name}, not {dst}", "type")
    if dst == "bool":
        ctx.check_equal(out, exact != 0)
    elif dst in INTS:
        ctx.check_equal(out, np.trunc(exact).astype(dst))
    else:
        values = exact.real if exact.dtype.kind == "c" else exact
        check_swept(ctx, out, values.astype("float64"))


# The study's other kinds of paths: the documented error for a cast TF has no kernel for
# (string to float: exact type and message), the second derivative through nested
# GradientTapes of sum(cast(x, float64)**3) (6x, back in the input's dtype) in float32 and
# float64, and tf.vectorized_map of a cast, eager, in a tf.function and under XLA. New
# names; the cases above keep their ids.
@case("error-string-to-float")
def cast_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    s = tf.constant(["1.5"])
    check_raises(
        ctx,
        lambda: tf.cast(s, tf.float32),
        tf.errors.UnimplementedError,
        r"Cast string to float is not supported",
    )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def cast_grad2(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad2

    swept_grad2(ctx, lambda t: tf.cast(t, tf.float64) ** 3, lambda x: 6 * x, dtype, mode)


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def cast_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx,
        lambda t: tf.cast(t * 4, tf.int32),
        lambda x: np.trunc(x * 4).astype("int32"),
        "float32",
        mode,
    )
