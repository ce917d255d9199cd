"""tf.reshape: -1 inference, scalars, dtypes, graph/XLA, invalid sizes, gradient."""

import numpy as np
from tfhelp import ALL_DTYPES, MODES, by_mode, raises

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
