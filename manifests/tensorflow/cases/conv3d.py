"""tf.nn.conv3d: VALID/SAME, strides, dilations, float32/64, graph/XLA, gradient wrt the filter."""

import numpy as np
from convref import conv_nd
from tfhelp import by_mode

from portbench_runner.api import case


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
