"""tf.reshape: -1 inference, scalars, dtypes, graph/XLA, invalid sizes, gradient."""

import numpy as np
from tfhelp import ALL_DTYPES, GRAD2_FLOATS, MODES, by_mode, raises

from portbench_runner.api import case, sweep


@case("float32-infer", dtype="float32", shape=(6, 8), new=(-1, 4))
@case("float64-3d-graph", dtype="float64", shape=(24,), new=(2, 3, 4), mode="graph")
@case("int32-flatten", dtype="int32", shape=(3, 5, 2), new=(-1,))
@case("bool-eager", dtype="bool", shape=(4, 4), new=(2, 8))
@case("bfloat16-eager", dtype="bfloat16", shape=(4, 6), new=(3, 8))
@case("float32-xla", dtype="float32", shape=(6, 8), new=(8, 6), mode="xla")
@case("float32-to-scalar", dtype="float32", shape=(1, 1), new=())
@case("float32-empty", dtype="float32", shape=(0, 4), new=(4, 0))
@case("float32-large", dtype="float32", shape=(1000, 1000), new=(250, -1))
def reshape_values(ctx, dtype, shape, new, mode="eager"):
    import tensorflow as tf

    x = (ctx.rng.standard_normal(shape) * 10).astype(
        "float32" if dtype == "bfloat16" else "float64"
    )
    x = x.astype(dtype) if dtype != "bfloat16" else x
    fn = by_mode(ctx, lambda t: tf.reshape(t, new), mode)
    put = ctx.put(x, dtype=dtype)
    expected = ctx.to_numpy(put).reshape(new)  # bfloat16 values as placed, reshaped
    out = ctx.measure(fn, put)
    # reshape moves values, never converts them (a changed dtype passed the value check).
    ctx.check(out.dtype.name == dtype, f"reshape gave {out.dtype.name}, not {dtype}", "type")
    ctx.check_equal(out, expected)


@case("incompatible-size-raises")
def reshape_invalid(ctx):
    import tensorflow as tf

    x = ctx.put(np.zeros((3, 4), dtype="float32"))
    out = ctx.measure(raises(lambda: tf.reshape(x, (5, 3)), tf.errors.InvalidArgumentError))
    ctx.check(
        out == "InvalidArgumentError", f"reshape of 12 elements to (5, 3) raised {out}", "other"
    )


@case("gradient-reshapes-back")
def reshape_grad(ctx):
    import tensorflow as tf

    w = np.arange(12, dtype="float32").reshape(4, 3)
    x = ctx.put(ctx.rng.standard_normal((2, 6)).astype("float32"))

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.reshape(x, (4, 3)) * w)
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    ctx.check(out.dtype.name == "float32", f"the gradient is {out.dtype.name}", "type")
    ctx.check_close(out, w.reshape(2, 6), dtype="float32")


# Every dtype tf.reshape moves on the CPU (exact), eager, in a tf.function and under XLA,
# with a -1 dimension; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=ALL_DTYPES,
    mode=MODES,
)
def reshape_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import draw, placed

    x, exact = placed(ctx, draw(ctx, (4, 6, 5), dtype, 0, 9), dtype)
    out = ctx.measure(by_mode(ctx, lambda t: tf.reshape(t, (-1, 10)), mode), x)
    ctx.check(out.dtype.name == dtype, f"dtype {out.dtype.name}, not {dtype}", "type")
    ctx.check_equal(out, exact.reshape(-1, 10))


# The study's other kinds of paths: the documented errors for bad shapes (a size that does
# not fit, two -1s, a negative size other than -1: exact type and message), the Hessian
# through nested GradientTapes of sum(reshape(x)**3) (diag(6x)) in float32 and float64, and
# tf.vectorized_map of a reshape, eager, in a tf.function and under XLA. New names; the
# cases above keep their ids.
@sweep("error-{form}", form=["size-mismatch", "two-unknown", "negative-size"])
def reshape_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    shape, pattern = {
        "size-mismatch": (
            (5, 3),
            r"Input to reshape is a tensor with 12 values, but the requested shape has 15",
        ),
        "two-unknown": ((-1, -1), r"Only one input size may be -1"),
        "negative-size": ((-2, 6), r"Size 0 must be non-negative, not -2"),
    }[form]
    check_raises(ctx, lambda: tf.reshape(x, shape), tf.errors.InvalidArgumentError, pattern)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def reshape_hessian(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_hessian

    swept_hessian(
        ctx,
        lambda t: tf.reduce_sum(tf.reshape(t, (2, 3, 2)) ** 3),
        lambda x: np.diag(6 * x),
        dtype,
        mode,
        shape=(12,),
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def reshape_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx, lambda t: tf.reshape(t, (-1,)), lambda x: np.reshape(x, (-1,)), "float32", mode
    )
