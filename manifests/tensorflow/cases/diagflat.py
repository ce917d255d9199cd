"""tf.experimental.numpy.diagflat: vectors, flattened matrices, offsets k, dtypes, graph/XLA."""

import numpy as np
from tfhelp import COMPLEXES, EVERY_DTYPE, MODES, REAL_FLOATS, by_mode

from portbench_runner.api import case, sweep


@case("float32-vector", dtype="float32", shape=(8,), k=0)
@case("float64-k2-graph", dtype="float64", shape=(5,), k=2, mode="graph")
@case("int32-k-minus1", dtype="int32", shape=(6,), k=-1)
@case("float32-matrix-flattened", dtype="float32", shape=(3, 4), k=0)
@case("bool-vector", dtype="bool", shape=(7,), k=1)
@case("float32-xla", dtype="float32", shape=(16,), k=-3, mode="xla")
@case("float32-large-1000", dtype="float32", shape=(1000,), k=0)
@case("float32-empty", dtype="float32", shape=(0,), k=0)
def diagflat_values(ctx, dtype, shape, k, mode="eager"):
    import tensorflow as tf

    if dtype == "bool":
        x = ctx.rng.random(shape) > 0.5
    elif dtype == "int32":
        x = ctx.rng.integers(-9, 9, size=shape).astype("int32")
    else:
        x = ctx.rng.standard_normal(shape).astype(dtype)
    fn = by_mode(ctx, lambda t: tf.experimental.numpy.diagflat(t, k=k), mode)
    out = ctx.measure(fn, ctx.put(x))
    ctx.check_equal(out, np.diagflat(x, k=k))


# Every dtype diagflat builds a matrix of (numeric and bool), eager, in a tf.function and
# under XLA, from a flattened 2-D input above the diagonal; new names, so the cases above
# keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def diagflat_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype, draw_any, placed

    x, exact = placed(ctx, draw_any(ctx, (2, 3), dtype, 1, 9), dtype)
    out = ctx.measure(by_mode(ctx, lambda t: tf.experimental.numpy.diagflat(t, k=2), mode), x)
    check_dtype(ctx, out, dtype)
    # diagflat only moves values: exact in every dtype (bfloat16 compared as float32).
    ctx.check_equal(ctx.to_numpy(out), np.diagflat(exact, k=2).astype(ctx.to_numpy(out).dtype))


# The gradient picks the diagonal back out: d sum(diagflat(x) * m) / dx = diag(m, k).
@sweep("grad-{dtype}-{mode}-sweep", dtype=REAL_FLOATS + COMPLEXES, mode=MODES)
def diagflat_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype, check_swept, draw, placed

    x, _ = placed(ctx, draw(ctx, (5,), dtype), dtype)
    m, ms = placed(ctx, draw(ctx, (6, 6), dtype), dtype)

    def grad(a, b):
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = tf.reduce_sum(tf.experimental.numpy.diagflat(a, k=-1) * b)
        return tape.gradient(y, a)

    out = ctx.measure(by_mode(ctx, grad, mode), x, m)
    check_dtype(ctx, out, dtype)
    # TensorFlow's complex gradients are conjugated (the gradient of a real loss).
    expected = np.diag(ms, k=-1)
    check_swept(ctx, out, np.conj(expected) if dtype.startswith("complex") else expected)


@case("scalar-input")
def diagflat_scalar(ctx):
    import tensorflow as tf

    out = ctx.measure(tf.experimental.numpy.diagflat, ctx.put(np.float32(2.5)), k=1)
    # The reference from a 1-element vector: NumPy < 1.25 returns a scalar 0 for a scalar.
    ctx.check_equal(out, np.diagflat(np.array([2.5], dtype="float32"), k=1))
