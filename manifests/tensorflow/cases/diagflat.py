"""tf.experimental.numpy.diagflat: vectors, flattened matrices, offsets k, dtypes, graph/XLA."""

import numpy as np
from tfhelp import COMPLEXES, EVERY_DTYPE, GRAD2_FLOATS, MODES, REAL_FLOATS, by_mode

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


# The study's other kinds of paths: the documented error for a string input (exact type and
# message), the Hessian through nested GradientTapes of sum(diagflat(x)**3) (diagflat
# places each element once: diag(6x)) in float32 and float64, and tf.vectorized_map of
# diagflat, eager, in a tf.function and under XLA. New names; the cases above keep their
# ids.
@case("error-string-input")
def diagflat_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    s = tf.constant(["a", "b"])
    check_raises(
        ctx, lambda: tf.experimental.numpy.diagflat(s), TypeError, r"to EagerTensor of dtype string"
    )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def diagflat_hessian(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_hessian

    swept_hessian(
        ctx,
        lambda t: tf.reduce_sum(tf.experimental.numpy.diagflat(t, 1) ** 3),
        lambda x: np.diag(6 * x),
        dtype,
        mode,
        shape=(5,),
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def diagflat_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx,
        lambda t: tf.experimental.numpy.diagflat(t, -1),
        lambda x: np.diagflat(x, -1),
        "float32",
        mode,
        shape=(4, 6),
    )
