"""tf.nn.conv3d: VALID/SAME, strides, dilations, float32/64, graph/XLA, gradient wrt the filter."""

import numpy as np
from convref import conv_nd
from tfhelp import GRAD2_FLOATS, MODES, REAL_FLOATS, by_mode

from portbench_runner.api import case, sweep


@case("float32-valid", dtype="float32", strides=[1, 1, 1], padding="VALID")
@case("float64-same-stride2", dtype="float64", strides=[2, 2, 2], padding="SAME")
@case(
    "float32-mixed-strides-graph", dtype="float32", strides=[1, 2, 3], padding="SAME", mode="graph"
)
@case("float32-xla", dtype="float32", strides=[1, 1, 1], padding="SAME", mode="xla")
@case(
    "float32-large",
    dtype="float32",
    strides=[1, 1, 1],
    padding="SAME",
    shape=(2, 32, 32, 32, 8),
    cout=16,
)
@case("float32-dilation2", dtype="float32", strides=[1, 1, 1], padding="VALID", dilations=[2, 2, 2])
def conv3d_values(
    ctx, dtype, strides, padding, mode="eager", shape=(2, 6, 7, 8, 3), cout=4, dilations=None
):
    import tensorflow as tf

    x = ctx.rng.standard_normal(shape).astype(dtype)
    w = ctx.rng.standard_normal((3, 3, 3, shape[-1], cout)).astype(dtype)
    kwargs = {"dilations": [1, *dilations, 1]} if dilations else {}
    fn = by_mode(ctx, lambda a, b: tf.nn.conv3d(a, b, [1, *strides, 1], padding, **kwargs), mode)
    out = ctx.measure(fn, ctx.put(x), ctx.put(w))
    expected = conv_nd(x.astype("float64"), w.astype("float64"), strides, padding, dilations)
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(out, expected, rtol=tol, atol=tol * np.abs(expected).max())


@case("gradient-wrt-filter")
def gradient(ctx):
    import tensorflow as tf

    x_np = ctx.rng.standard_normal((1, 4, 4, 4, 2))
    w = ctx.put(ctx.rng.standard_normal((2, 2, 2, 2, 3)))
    x = ctx.put(x_np)

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(w)
            y = tf.reduce_sum(tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID"))
        return tape.gradient(y, w)

    out = ctx.measure(grad)
    # d sum(conv)/d w[k, ci, co] is the sum of the input window at offset k, for every co.
    expected = np.zeros((2, 2, 2, 2, 3))
    for a in range(2):
        for b in range(2):
            for c in range(2):
                expected[a, b, c] = x_np[0, a : a + 3, b : b + 3, c : c + 3].sum(axis=(0, 1, 2))[
                    :, None
                ]
    ctx.check_close(out, expected, dtype="float64")


#: Tolerance relative to the largest |output|, by dtype (a 3x3x3x3 window sums 81 products).
SWEEP_TOL = {"float16": 4e-3, "bfloat16": 3e-2, "float32": 1e-5, "float64": 1e-12}


# Every dtype conv3d has CPU kernels for (the real floats; integers and complex are refused),
# eager, in a tf.function and under XLA, SAME with stride 2 on one axis; the inputs are
# rounded to the dtype first, so the float64 reference sees what the op sees. New names.
@sweep("{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def conv3d_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype, draw, placed

    x, xs = placed(ctx, draw(ctx, (1, 5, 4, 6, 3), dtype, -1, 1), dtype)
    w, ws = placed(ctx, draw(ctx, (3, 3, 3, 3, 2), dtype, -1, 1), dtype)
    fn = by_mode(ctx, lambda a, b: tf.nn.conv3d(a, b, [1, 1, 2, 1, 1], "SAME"), mode)
    out = ctx.measure(fn, x, w)
    check_dtype(ctx, out, dtype)
    expected = conv_nd(xs, ws, [1, 2, 1], "SAME")
    tol = SWEEP_TOL[dtype]
    ctx.check_close(out, expected, rtol=tol, atol=tol * np.abs(expected).max())


# The input gradient of sum(conv3d(x, w)) in every float dtype and mode: each input voxel
# collects the sum of the filter taps that cover it (a convolution of ones with w).
@sweep("grad-input-{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def conv3d_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype, draw, placed

    x, _ = placed(ctx, draw(ctx, (1, 4, 4, 4, 2), dtype, -1, 1), dtype)
    w, ws = placed(ctx, draw(ctx, (2, 2, 2, 2, 3), dtype, -1, 1), dtype)

    def grad(a, b):
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = tf.reduce_sum(tf.nn.conv3d(a, b, [1, 1, 1, 1, 1], "VALID"))
        return tape.gradient(y, a)

    out = ctx.measure(by_mode(ctx, grad, mode), x, w)
    check_dtype(ctx, out, dtype)
    taps = ws.sum(axis=4)  # [kd, kh, kw, cin]: d sum / d x for each tap
    expected = np.zeros((1, 4, 4, 4, 2))
    for i in range(3):
        for j in range(3):
            for k in range(3):
                expected[0, i : i + 2, j : j + 2, k : k + 2] += taps
    tol = SWEEP_TOL[dtype]
    ctx.check_close(out, expected, rtol=tol, atol=tol * np.abs(expected).max())


# The study's other kinds of paths: the documented errors for bad arguments (input and
# filter channels that differ, an unknown padding: exact type and message), the full grid of
# padding x strides x dilations (TF convolves with dilations only at stride 1), the Hessian
# through nested GradientTapes of sum(conv3d(x)**2) (2 A^T A, A the convolution's matrix)
# in float32 and float64, and tf.vectorized_map of conv3d over a batch, eager, in a
# tf.function and under XLA. New names; the cases above keep their ids.
@sweep("error-{form}", form=["channels-differ", "unknown-padding"])
def conv3d_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    x = ctx.put(np.ones((1, 4, 4, 4, 2), dtype="float32"))
    if form == "channels-differ":
        w = ctx.put(np.ones((2, 2, 2, 3, 1), dtype="float32"))
        check_raises(
            ctx,
            lambda: tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID"),
            tf.errors.InvalidArgumentError,
            r"input and filter must have the same depth",
        )
    else:
        w = ctx.put(np.ones((2, 2, 2, 2, 1), dtype="float32"))
        check_raises(
            ctx,
            lambda: tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "FULL"),
            tf.errors.InvalidArgumentError,
            r"Value for attr 'padding' of \"FULL\" is not in the list of allowed values",
        )


@sweep(
    "flags-{padding}-stride{stride}-dilation{dilation}-sweep",
    padding=["SAME", "VALID"],
    stride=[1, 2],
    dilation=[1, 2],
    exclude=[{"stride": 2, "dilation": 2}],
)
def conv3d_flags(ctx, padding, stride, dilation):
    import tensorflow as tf

    # float32: the CPU's float64 Conv3D kernel takes no dilation (a dtype gap the dtype
    # sweeps, not this grid of flags, are for).
    x = ctx.rng.standard_normal((1, 6, 5, 7, 2)).astype("float32")
    w = ctx.rng.standard_normal((2, 3, 2, 2, 3)).astype("float32")
    s, d = [stride] * 3, [dilation] * 3
    out = ctx.measure(
        lambda a, b: tf.nn.conv3d(a, b, [1, *s, 1], padding, dilations=[1, *d, 1]),
        ctx.put(x),
        ctx.put(w),
    )
    expected = conv_nd(x.astype("float64"), w.astype("float64"), s, padding, d)
    ctx.check_close(out, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def conv3d_hessian(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_hessian

    w = np.linspace(-1, 1, 16).reshape(2, 2, 2, 1, 2)
    a = np.stack(
        [
            conv_nd(np.eye(27)[i].reshape(1, 3, 3, 3, 1), w, [1, 1, 1], "VALID").ravel()
            for i in range(27)
        ],
        axis=1,
    )

    def f(t):
        y = tf.nn.conv3d(
            tf.reshape(t, (1, 3, 3, 3, 1)), tf.constant(w, t.dtype), [1, 1, 1, 1, 1], "VALID"
        )
        return tf.reduce_sum(y**2)

    swept_hessian(ctx, f, lambda x: 2 * a.T @ a, dtype, mode, shape=(27,), scale=8.0)


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def conv3d_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    w = np.linspace(-1, 1, 12).reshape(2, 1, 2, 3, 1).astype("float32")
    swept_vectorized_map(
        ctx,
        lambda t: tf.nn.conv3d(t[None], tf.constant(w), [1, 1, 1, 1, 1], "SAME")[0],
        lambda x: conv_nd(x[None], w.astype("float64"), [1, 1, 1], "SAME")[0],
        "float32",
        mode,
        shape=(3, 4, 3, 5, 3),
        scale=8.0,
    )
