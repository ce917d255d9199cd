"""tf.math.reduce_logsumexp: axes, keepdims, stability with large values, -inf, graph/XLA, gradient."""

import numpy as np
from tfhelp import MODES, REAL_FLOATS, bf16_round, by_mode

from portbench_runner.api import case, sweep


def _lse(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


@case("float32-all", dtype="float32", axis=None)
@case("float64-axis1-graph", dtype="float64", axis=1, mode="graph")
@case("float32-keepdims", dtype="float32", axis=0, keepdims=True)
@case("bfloat16-axis1", dtype="bfloat16", axis=1)
@case("float32-xla", dtype="float32", axis=1, mode="xla")
@case("float32-large", dtype="float32", axis=1, shape=(1000, 1000))
@case("float32-huge-values", dtype="float32", axis=1, scale=1000.0)
def lse_values(ctx, dtype, axis, mode="eager", keepdims=False, shape=(32, 64), scale=3.0):
    import tensorflow as tf

    x = (ctx.rng.standard_normal(shape) * scale).astype("float32" if dtype == "bfloat16" else dtype)
    ref_in = bf16_round(ctx, x) if dtype == "bfloat16" else x.astype("float64")
    fn = by_mode(ctx, lambda t: tf.math.reduce_logsumexp(t, axis=axis, keepdims=keepdims), mode)
    out = ctx.measure(fn, ctx.put(x, dtype=dtype))
    rtol = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 2e-2}[dtype]
    ctx.check_close(out, _lse(ref_in, axis, keepdims), rtol=rtol, atol=rtol)


@case("all-minus-inf-row")
def lse_minus_inf(ctx):
    import tensorflow as tf

    x = np.array([[-np.inf, -np.inf], [0.0, 0.0]], dtype="float32")
    out = ctx.measure(tf.math.reduce_logsumexp, ctx.put(x), axis=1)
    ctx.check_close(out, np.array([-np.inf, np.log(2.0)]), dtype="float32")


@case("gradient-is-softmax")
def lse_grad(ctx):
    import tensorflow as tf

    x_np = ctx.rng.standard_normal((4, 10))
    x = ctx.put(x_np)

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.math.reduce_logsumexp(x, axis=1))
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    e = np.exp(x_np - x_np.max(axis=1, keepdims=True))
    ctx.check_close(out, e / e.sum(axis=1, keepdims=True), dtype="float64")


# Every dtype reduce_logsumexp takes on the CPU (floats only), eager, in a tf.function and
# under XLA, with its gradient (the softmax); new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=REAL_FLOATS,
    mode=MODES,
)
def lse_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_swept, draw, placed

    x, exact = placed(ctx, draw(ctx, (16, 32), dtype), dtype)
    out = ctx.measure(by_mode(ctx, lambda t: tf.math.reduce_logsumexp(t, axis=1), mode), x)
    check_swept(ctx, out, _lse(exact, 1), scale=8.0)


@sweep(
    "grad-{dtype}-{mode}-sweep",
    dtype=["bfloat16", "float32", "float64"],
    mode=MODES,
)
def lse_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad

    swept_grad(
        ctx,
        lambda t: tf.math.reduce_logsumexp(t, axis=0),
        lambda x: np.exp(x - _lse(x, 0)),
        dtype,
        mode,
        scale=4.0,
    )
