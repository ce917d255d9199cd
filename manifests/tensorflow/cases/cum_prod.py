"""tf.experimental.numpy.cumprod: axes, flattening, dtypes, empty, graph/XLA, gradient.

The study's test timed NumPy's cumprod; these cases time TensorFlow's.
"""

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, by_mode

from portbench_runner.api import case, sweep


@case("float32-axis1", dtype="float32", axis=1)
@case("float64-axis0-graph", dtype="float64", axis=0, mode="graph")
@case("int32-flattened", dtype="int32", axis=None)
@case("float32-xla", dtype="float32", axis=1, mode="xla")
@case("float32-large", dtype="float32", axis=1, shape=(1000, 1000))
@case("float32-empty", dtype="float32", axis=0, shape=(0, 3))
def cumprod_values(ctx, dtype, axis, mode="eager", shape=(16, 24)):
    import tensorflow as tf

    if dtype == "int32":
        x = ctx.rng.integers(-2, 3, size=shape).astype("int32")
    else:
        # Factors near 1 keep long products finite.
        x = ctx.rng.uniform(0.99, 1.01, size=shape).astype(dtype)
    fn = by_mode(ctx, lambda t: tf.experimental.numpy.cumprod(t, axis=axis), mode)
    out = ctx.measure(fn, ctx.put(x))
    if dtype == "int32":
        ctx.check_equal(out, np.cumprod(x, axis=axis))
    else:
        rtol = 1e-4 if dtype == "float32" else 1e-12
        ctx.check_close(out, np.cumprod(x.astype("float64"), axis=axis), rtol=rtol, atol=1e-6)


@case("bool-promotes-to-int")
def cumprod_bool(ctx):
    import tensorflow as tf

    x = np.array([True, True, False, True])
    out = ctx.measure(tf.experimental.numpy.cumprod, ctx.put(x))
    ctx.check_equal(out, np.cumprod(x))


@case("gradient-float64")
def cumprod_grad(ctx):
    import tensorflow as tf

    x_np = ctx.rng.uniform(0.5, 1.5, size=(6,))
    x = ctx.put(x_np)

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.experimental.numpy.cumprod(x))
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    # d/dx_j sum_i prod_{k<=i} x_k = sum_{i>=j} prod_{k<=i} x_k / x_j
    prods = np.cumprod(x_np)
    expected = np.array([prods[j:].sum() / x_np[j] for j in range(6)])
    ctx.check_close(out, expected, dtype="float64")


# Every dtype tnp.cumprod takes on the CPU, eager, in a tf.function and under XLA (values
# near 1; integers 0..2 over 6 terms, so nothing wraps); new names, so the cases above keep
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
        "int32",
        "int64",
        "uint8",
    ],
    mode=MODES,
)
def cumprod_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import INTS, check_swept, draw, placed

    lo, hi = (0, 3) if dtype in INTS else (0.5, 1.5)
    x, exact = placed(ctx, draw(ctx, (8, 6), dtype, lo, hi), dtype)
    out = ctx.measure(by_mode(ctx, lambda t: tf.experimental.numpy.cumprod(t, axis=1), mode), x)
    check_swept(ctx, out, np.cumprod(exact, axis=1), scale=6.0)


def _cumprod_hessian(x):
    """The Hessian of sum(cumprod(x)) for a vector: d2/dxi dxj of sum_k prod_{m<=k} x_m is the
    sum over k >= max(i, j) of the product without x_i and x_j (i != j), 0 on the diagonal."""
    n = x.size
    h = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                for k in range(max(i, j), n):
                    h[i, j] += np.prod(np.delete(x[: k + 1], [i, j]))
    return h


# The study's other kinds of paths: the documented error for an axis out of range (exact
# type and message), the full grid of cumprod's flags (axis x dtype), the Hessian through
# nested GradientTapes of sum(cumprod(x)) in float32 and float64, and tf.vectorized_map of a
# cumprod, eager, in a tf.function and under XLA. New names; the cases above keep their ids.
@case("error-axis-out-of-range")
def cumprod_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    check_raises(
        ctx,
        lambda: tf.experimental.numpy.cumprod(x, axis=2),
        tf.errors.InvalidArgumentError,
        r"Expected scan axis in the range \[-2, 2\)",
    )


@sweep(
    "flags-axis-{axis}-dtype-{dtype}-sweep",
    axis=["flat", "0", "1", "-1"],
    dtype=["same", "float64"],
)
def cumprod_flags(ctx, axis, dtype):
    import tensorflow as tf

    x = ctx.rng.uniform(0.5, 1.5, (4, 5)).astype("float32")
    ax = None if axis == "flat" else int(axis)
    kw = {} if dtype == "same" else {"dtype": tf.float64}
    out = ctx.measure(lambda t: tf.experimental.numpy.cumprod(t, axis=ax, **kw), ctx.put(x))
    want = "float32" if dtype == "same" else "float64"
    ctx.check(out.dtype.name == want, f"dtype {out.dtype.name}, not {want}", "type")
    ctx.check_close(
        out,
        np.cumprod(x.astype("float64"), axis=ax),
        dtype=want,
        rtol=1e-5 if want == "float32" else 1e-12,
    )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def cumprod_hessian(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_hessian

    swept_hessian(
        ctx,
        lambda t: tf.reduce_sum(tf.experimental.numpy.cumprod(t)),
        _cumprod_hessian,
        dtype,
        mode,
        shape=(6,),
        lo=0.5,
        hi=1.5,
        scale=4.0,
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def cumprod_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx,
        lambda t: tf.experimental.numpy.cumprod(t, axis=-1),
        lambda x: np.cumprod(x, axis=-1),
        "float32",
        mode,
        lo=0.5,
        hi=1.5,
        scale=4.0,
    )
