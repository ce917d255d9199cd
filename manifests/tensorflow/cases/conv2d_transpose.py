"""tf.nn.conv2d_transpose: strides, SAME/VALID, float32/64, graph/XLA, consistency with conv2d's gradient."""

import numpy as np
from convref import conv2d_transpose, conv_nd
from tfhelp import by_mode

from portbench_runner.api import case


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
