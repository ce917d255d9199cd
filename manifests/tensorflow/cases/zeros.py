"""tf.zeros: shapes (scalar, empty, large), dtypes (float, int, bool, bfloat16, string), graph/XLA."""

import numpy as np
from tfhelp import ALL_DTYPES, MODES, by_mode

from portbench_runner.api import case, sweep


@case("float32-default", dtype=None, shape=(4, 5))
@case("float64", dtype="float64", shape=(3, 3))
@case("int64", dtype="int64", shape=(7,))
@case("bool", dtype="bool", shape=(2, 2, 2))
@case("bfloat16", dtype="bfloat16", shape=(16,))
@case("float32-scalar", dtype="float32", shape=())
@case("float32-empty", dtype="float32", shape=(0, 8))
@case("float32-large", dtype="float32", shape=(1000, 1000))
def zeros_eager(ctx, dtype, shape):
    import tensorflow as tf

    kwargs = {"dtype": getattr(tf, dtype)} if dtype else {}
    out = ctx.measure(tf.zeros, shape, **kwargs)
    ctx.check(out.dtype.name == (dtype or "float32"), f"dtype {out.dtype.name}", "type")
    ctx.check_equal(out, np.zeros(shape))


@case("graph-with-tensor-shape", mode="graph")
@case("xla-like-input", mode="xla")
def zeros_compiled(ctx, mode):
    import tensorflow as tf

    fn = by_mode(ctx, lambda t: tf.zeros(tf.shape(t), dtype=tf.int32) + 1, mode)
    out = ctx.measure(fn, ctx.put(np.ones((6, 3), dtype="float32")))
    ctx.check_equal(out, np.ones((6, 3), dtype="int32"))


@case("string-dtype")
def zeros_string(ctx):
    import tensorflow as tf

    out = ctx.measure(tf.zeros, (2, 3), dtype=tf.string)
    ctx.check_equal(out, np.full((2, 3), b"", dtype=object))


# Every numeric dtype tf.zeros makes on the CPU, eager, in a tf.function and under XLA;
# new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=ALL_DTYPES,
    mode=MODES,
)
def zeros_dtypes(ctx, dtype, mode):
    import tensorflow as tf

    out = ctx.measure(by_mode(ctx, lambda: tf.zeros((5, 7), dtype=getattr(tf, dtype)), mode))
    ctx.check(out.dtype.name == dtype, f"dtype {out.dtype.name}, not {dtype}", "type")
    ctx.check_equal(out, np.zeros((5, 7)))


# The study's other kinds of paths: the documented errors for bad arguments (a negative
# dimension, an unknown dtype name, a float dimension: exact type and message). New names;
# the cases above keep their ids.
@sweep("error-{form}", form=["negative-dimension", "unknown-dtype", "float-dimension"])
def zeros_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    call, exc, pattern = {
        "negative-dimension": (
            lambda: tf.zeros((-1, 2)),
            tf.errors.InvalidArgumentError,
            r"Dimension -1 must be >= 0",
        ),
        "unknown-dtype": (
            lambda: tf.zeros((2,), dtype="floaty"),
            TypeError,
            r"Cannot convert the argument `type_value`: 'floaty' to a TensorFlow DType",
        ),
        "float-dimension": (
            lambda: tf.zeros((2.5,)),
            TypeError,
            r"Cannot convert \(2\.5,\) to EagerTensor of dtype int32",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)
