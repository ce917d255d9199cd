"""tf.nn.conv2d_transpose: strides, SAME/VALID, float32/64, graph/XLA, consistency with conv2d's gradient."""

import numpy as np
from convref import conv2d_transpose, conv_nd
from tfhelp import GRAD2_FLOATS, MODES, REAL_FLOATS, by_mode

from portbench_runner.api import case, sweep


@case("float32-valid-stride2", dtype="float32", stride=2, padding="VALID")
@case("float64-same-stride1", dtype="float64", stride=1, padding="SAME")
@case("float32-same-stride2-graph", dtype="float32", stride=2, padding="SAME", mode="graph")
@case("float32-same-stride2-xla", dtype="float32", stride=2, padding="SAME", mode="xla")
@case("float32-large", dtype="float32", stride=2, padding="SAME", shape=(4, 64, 64, 32), cout=32)
def transpose_values(ctx, dtype, stride, padding, mode="eager", shape=(2, 5, 6, 3), cout=4):
    import tensorflow as tf

    n, h, wd, cin = shape
    x = ctx.rng.standard_normal(shape).astype(dtype)
    w = ctx.rng.standard_normal((3, 3, cout, cin)).astype(dtype)
    if padding == "SAME":
        out_hw = (h * stride, wd * stride)
    else:
        out_hw = ((h - 1) * stride + 3, (wd - 1) * stride + 3)
    out_shape = [n, out_hw[0], out_hw[1], cout]
    fn = by_mode(
        ctx, lambda a, b: tf.nn.conv2d_transpose(a, b, out_shape, stride, padding=padding), mode
    )
    out = ctx.measure(fn, ctx.put(x), ctx.put(w))
    expected = conv2d_transpose(x.astype("float64"), w.astype("float64"), out_hw, stride, padding)
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(out, expected, rtol=tol, atol=tol * np.abs(expected).max())


@case("adjoint-of-conv2d")
def adjoint(ctx):
    import tensorflow as tf

    # <conv2d(y, w), x> == <y, conv2d_transpose(x, w)>: the defining property of the transpose.
    x = ctx.rng.standard_normal((1, 4, 4, 2))
    w = ctx.rng.standard_normal((3, 3, 5, 2))  # [kh, kw, out of the transpose, in]
    y = ctx.rng.standard_normal((1, 8, 8, 5))
    out = ctx.measure(
        tf.nn.conv2d_transpose, ctx.put(x), ctx.put(w), [1, 8, 8, 5], 2, padding="SAME"
    )
    conv = conv_nd(y, w, [2, 2], "SAME")  # the same w read as conv2d's [kh, kw, in=5, out=2]
    lhs = float((conv * x).sum())
    rhs = float((ctx.to_numpy(out) * y).sum())
    ctx.check(
        abs(lhs - rhs) <= 1e-9 * max(1.0, abs(lhs)), f"<conv(y), x>={lhs} but <y, convT(x)>={rhs}"
    )


@case("gradient-wrt-input")
def gradient(ctx):
    import tensorflow as tf

    x_np = ctx.rng.standard_normal((1, 3, 3, 2))
    w_np = ctx.rng.standard_normal((2, 2, 3, 2))
    g_np = ctx.rng.standard_normal((1, 6, 6, 3))
    x, w, g = ctx.put(x_np), ctx.put(w_np), ctx.put(g_np)

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.nn.conv2d_transpose(x, w, [1, 6, 6, 3], 2, padding="SAME") * g)
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    # The gradient of the transpose is the convolution of the upstream gradient with w.
    ctx.check_close(out, conv_nd(g_np, w_np, [2, 2], "SAME"), dtype="float64")


#: Tolerance relative to the largest |output|, by dtype.
SWEEP_TOL = {"float16": 4e-3, "bfloat16": 3e-2, "float32": 1e-5, "float64": 1e-12}


# Every float dtype conv2d_transpose has CPU kernels for, eager, in a tf.function and under
# XLA, stride 2 with SAME and VALID padding; inputs rounded to the dtype first. New names.
@sweep("{dtype}-{padding}-{mode}-sweep", dtype=REAL_FLOATS, padding=["SAME", "VALID"], mode=MODES)
def transpose_dtypes(ctx, dtype, padding, mode):
    import tensorflow as tf
    from tfhelp import check_dtype, draw, placed

    n, h, wd, cin, cout = 2, 3, 4, 3, 2
    x, xs = placed(ctx, draw(ctx, (n, h, wd, cin), dtype, -1, 1), dtype)
    w, ws = placed(ctx, draw(ctx, (3, 3, cout, cin), dtype, -1, 1), dtype)
    out_hw = (h * 2, wd * 2) if padding == "SAME" else ((h - 1) * 2 + 3, (wd - 1) * 2 + 3)
    shape = [n, out_hw[0], out_hw[1], cout]
    fn = by_mode(ctx, lambda a, b: tf.nn.conv2d_transpose(a, b, shape, 2, padding=padding), mode)
    out = ctx.measure(fn, x, w)
    check_dtype(ctx, out, dtype)
    expected = conv2d_transpose(xs, ws, out_hw, 2, padding)
    tol = SWEEP_TOL[dtype]
    ctx.check_close(out, expected, rtol=tol, atol=tol * np.abs(expected).max())


# Gradients wrt the input and the filter in every float dtype and mode: the input gradient
# of <convT(x, w), g> is conv2d(g, w); the filter gradient is checked by linearity,
# <d/dw, w> == <convT(x, w), g> (the output is linear in w).
@sweep("grad-{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def transpose_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype, draw, placed

    x, xs = placed(ctx, draw(ctx, (1, 3, 3, 2), dtype, -1, 1), dtype)
    w, ws = placed(ctx, draw(ctx, (2, 2, 3, 2), dtype, -1, 1), dtype)
    g, gs = placed(ctx, draw(ctx, (1, 6, 6, 3), dtype, -1, 1), dtype)

    def grads(a, b, up):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = tf.reduce_sum(tf.nn.conv2d_transpose(a, b, [1, 6, 6, 3], 2, padding="SAME") * up)
        return tape.gradient(y, [a, b])

    dx, dw = ctx.measure(by_mode(ctx, grads, mode), x, w, g)
    check_dtype(ctx, dx, dtype)
    tol = SWEEP_TOL[dtype] * 4
    expected = conv_nd(gs, ws, [2, 2], "SAME")
    ctx.check_close(dx, expected, rtol=tol, atol=tol * np.abs(expected).max(), what="input grad")
    value = float((conv2d_transpose(xs, ws, (6, 6), 2, "SAME") * gs).sum())
    got = float((ctx.to_numpy(dw).astype("float64") * ws).sum())
    scale = float(
        (np.abs(conv2d_transpose(np.abs(xs), np.abs(ws), (6, 6), 2, "SAME")) * np.abs(gs)).sum()
    )
    ctx.check(abs(got - value) <= tol * max(scale, 1.0), f"<dw, w> = {got}, <convT, g> = {value}")


# The study's other kinds of paths: the documented error for an unknown padding (exact type
# and message), the full grid of padding x stride (1, 2, 3), the Hessian through nested
# GradientTapes of sum(conv2d_transpose(x)**2) (2 A^T A) in float32 and float64, and
# tf.vectorized_map of conv2d_transpose over a batch, eager, in a tf.function and under
# XLA. New names; the cases above keep their ids.
@case("error-unknown-padding")
def transpose_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    x = ctx.put(np.ones((1, 4, 4, 2), dtype="float32"))
    w = ctx.put(np.ones((3, 3, 5, 2), dtype="float32"))
    check_raises(
        ctx,
        lambda: tf.nn.conv2d_transpose(x, w, [1, 8, 8, 5], 2, padding="FULL"),
        tf.errors.InvalidArgumentError,
        r"Value for attr 'padding' of \"FULL\" is not in the list of allowed values",
    )


@sweep("flags-{padding}-stride{stride}-sweep", padding=["SAME", "VALID"], stride=[1, 2, 3])
def transpose_flags(ctx, padding, stride):
    import tensorflow as tf

    x = ctx.rng.standard_normal((2, 4, 3, 2))
    w = ctx.rng.standard_normal((3, 3, 4, 2))
    out_hw = (4 * stride, 3 * stride) if padding == "SAME" else (3 * stride + 3, 2 * stride + 3)
    shape = [2, *out_hw, 4]
    out = ctx.measure(
        lambda a, b: tf.nn.conv2d_transpose(a, b, shape, stride, padding=padding),
        ctx.put(x),
        ctx.put(w),
    )
    ctx.check_close(out, conv2d_transpose(x, w, out_hw, stride, padding), rtol=1e-10, atol=1e-10)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def transpose_hessian(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_hessian

    w = np.linspace(-1, 1, 36).reshape(3, 3, 2, 2)
    a = np.stack(
        [
            conv2d_transpose(np.eye(8)[i].reshape(1, 2, 2, 2), w, (5, 5), 2, "VALID").ravel()
            for i in range(8)
        ],
        axis=1,
    )

    def f(t):
        y = tf.nn.conv2d_transpose(
            tf.reshape(t, (1, 2, 2, 2)), tf.constant(w, t.dtype), [1, 5, 5, 2], 2, padding="VALID"
        )
        return tf.reduce_sum(y**2)

    swept_hessian(ctx, f, lambda x: 2 * a.T @ a, dtype, mode, shape=(8,), scale=8.0)


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def transpose_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    w = np.linspace(-1, 1, 36).reshape(3, 3, 2, 2).astype("float32")
    swept_vectorized_map(
        ctx,
        lambda t: tf.nn.conv2d_transpose(t[None], tf.constant(w), [1, 6, 8, 2], 2, padding="SAME")[
            0
        ],
        lambda x: conv2d_transpose(x[None], w.astype("float64"), (6, 8), 2, "SAME")[0],
        "float32",
        mode,
        shape=(3, 3, 4, 2),
        scale=8.0,
    )
