"""tf.linalg.set_diag: square, batched, rectangular, bands k, dtypes, graph/XLA, gradient."""

import numpy as np
from tfhelp import by_mode

from portbench_runner.api import case


@case("float32-square", dtype="float32", shape=(8, 8))
@case("float64-batched-graph", dtype="float64", shape=(3, 5, 5), mode="graph")
@case("int32-tall", dtype="int32", shape=(6, 4))
@case("float32-wide", dtype="float32", shape=(2, 3, 7))
@case("bool-square", dtype="bool", shape=(4, 4))
@case("float32-xla", dtype="float32", shape=(6, 6), mode="xla")
@case("float32-large", dtype="float32", shape=(1000, 1000))
def set_main_diag(ctx, dtype, shape, mode="eager"):
    import tensorflow as tf

    n = min(shape[-2:])
    if dtype == "bool":
        x = ctx.rng.random(shape) > 0.5
        d = ctx.rng.random((*shape[:-2], n)) > 0.5
    else:
        x = (ctx.rng.standard_normal(shape) * 5).astype(dtype)
        d = (ctx.rng.standard_normal((*shape[:-2], n)) * 5).astype(dtype)
    fn = by_mode(ctx, tf.linalg.set_diag, mode)
    out = ctx.measure(fn, ctx.put(x), ctx.put(d))
    expected = x.copy()
    idx = np.arange(n)
    expected[..., idx, idx] = d
    ctx.check_equal(out, expected)


@case("superdiagonal-k1")
def set_super_diag(ctx):
    import tensorflow as tf

    x = ctx.rng.standard_normal((5, 5)).astype("float32")
    d = ctx.rng.standard_normal(4).astype("float32")
    out = ctx.measure(tf.linalg.set_diag, ctx.put(x), ctx.put(d), k=1)
    expected = x.copy()
    expected[np.arange(4), np.arange(1, 5)] = d
    ctx.check_equal(out, expected)


@case("gradient-splits-input-and-diag")
def set_diag_grad(ctx):
    import tensorflow as tf

    x = ctx.put(ctx.rng.standard_normal((4, 4)).astype("float32"))
    d = ctx.put(ctx.rng.standard_normal(4).astype("float32"))

    def grads():
        with tf.GradientTape() as tape:
            tape.watch([x, d])
            y = tf.reduce_sum(tf.linalg.set_diag(x, d) * 3.0)
        return tape.gradient(y, [x, d])

    gx, gd = ctx.measure(grads)
    ctx.check_close(gx, 3.0 * (1.0 - np.eye(4)), dtype="float32", what="d/dinput")
    ctx.check_close(gd, np.full(4, 3.0), dtype="float32", what="d/ddiagonal")
