"""tf.fill: dims and value, dtypes (float, int, bool, bfloat16, string), empty, large, graph/XLA."""

import numpy as np
from tfhelp import ALL_DTYPES, MODES, by_mode

from portbench_runner.api import case, sweep


@case("float32-eager", dtype="float32", value=2.5)
@case("float64-graph", dtype="float64", value=-1.25, mode="graph")
@case("int32-eager", dtype="int32", value=7)
@case("bool-eager", dtype="bool", value=True)
@case("bfloat16-eager", dtype="bfloat16", value=0.5)
@case("float32-xla", dtype="float32", value=3.0, mode="xla")
@case("float32-large", dtype="float32", value=1.0, dims=(1000, 1000))
@case("float32-empty", dtype="float32", value=1.0, dims=(0, 5))
@case("float32-scalar", dtype="float32", value=4.0, dims=())
def fill_values(ctx, dtype, value, mode="eager", dims=(32, 16)):
    import tensorflow as tf

    scalar = ctx.put(np.array(value), dtype=dtype)
    fn = by_mode(ctx, lambda v: tf.fill(dims, v), mode)
    out = ctx.measure(fn, scalar)
    np_dtype = "float32" if dtype == "bfloat16" else dtype
    ctx.check_equal(out, np.full(dims, value, dtype=np_dtype))


@case("string-value")
def fill_string(ctx):
    import tensorflow as tf

    out = ctx.measure(tf.fill, [2, 3], tf.constant("ab"))
    ctx.check_equal(out, np.full((2, 3), b"ab", dtype=object))


@case("dims-as-tensor-graph")
def fill_tensor_dims(ctx):
    import tensorflow as tf

    fn = ctx.graph(lambda d: tf.fill(d, 9))
    out = ctx.measure(fn, ctx.put(np.array([3, 2], dtype="int32")))
    ctx.check_equal(out, np.full((3, 2), 9, dtype="int32"))


# Every numeric dtype tf.fill takes on the CPU, eager, in a tf.function and under XLA (the
# value is exact in every dtype); new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=ALL_DTYPES,
    mode=MODES,
)
def fill_dtypes(ctx, dtype, mode):
    import tensorflow as tf

    value = True if dtype == "bool" else 3
    out = ctx.measure(by_mode(ctx, lambda v: tf.fill((6, 4), v), mode), ctx.put(value, dtype=dtype))
    ctx.check(out.dtype.name == dtype, f"dtype {out.dtype.name}, not {dtype}", "type")
    ctx.check_equal(out, np.full((6, 4), value))


# The study's other kinds of paths: the documented errors for bad arguments (a negative
# dimension, dims that are not a vector, a value that is not a scalar: exact type and
# message), and tf.vectorized_map of fill with a per-row value, eager, in a tf.function and
# under XLA. New names; the cases above keep their ids.
@sweep("error-{form}", form=["negative-dimension", "dims-not-vector", "value-not-scalar"])
def fill_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    dims, value, pattern = {
        "negative-dimension": ([-1, 2], 1.0, r"Dimension -1 must be >= 0"),
        "dims-not-vector": ([[2]], 1.0, r"dims must represent a vector, got shape \[1,1\]"),
        "value-not-scalar": ([2], [1.0, 2.0], r"value must represent a scalar, got shape \[2\]"),
    }[form]
    check_raises(ctx, lambda: tf.fill(dims, value), tf.errors.InvalidArgumentError, pattern)


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def fill_vectorized_map(ctx, mode):
    import tensorflow as tf

    values = ctx.rng.uniform(-3, 3, 6).astype("float32")
    out = ctx.measure(
        by_mode(ctx, lambda t: tf.vectorized_map(lambda v: tf.fill([2, 3], v), t), mode),
        ctx.put(values),
    )
    ctx.check_equal(out, np.broadcast_to(values[:, None, None], (6, 2, 3)))
