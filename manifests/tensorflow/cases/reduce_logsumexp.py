"""tf.math.reduce_logsumexp: axes, keepdims, stability with large values, -inf, graph/XLA, gradient."""

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, REAL_FLOATS, bf16_round, by_mode

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


def _logsumexp(x, axis=None, keepdims=False):
    top = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)) + top
    return out if keepdims else np.squeeze(out, axis=axis)


# The study's other kinds of paths: the documented errors for bad arguments (an axis out of
# range, integers: exact type and message), the full grid of axis x keepdims, the Hessian
# through nested GradientTapes (diag(p) - p p^T, p the softmax) in float32 and float64,
# and tf.vectorized_map of a row's logsumexp, eager, in a tf.function and under XLA. New
# names; the cases above keep their ids.
@sweep("error-{form}", form=["axis-out-of-range", "integer-input"])
def logsumexp_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "axis-out-of-range":
        x = ctx.put(np.ones((3, 4), dtype="float32"))
        check_raises(
            ctx,
            lambda: tf.math.reduce_logsumexp(x, axis=2),
            tf.errors.InvalidArgumentError,
            r"Invalid reduction dimension \(2 for input with 2 dimension",
        )
    else:
        i = ctx.put(np.ones(3, dtype="int32"))
        check_raises(
            ctx,
            lambda: tf.math.reduce_logsumexp(i),
            tf.errors.InvalidArgumentError,
            r"Value for attr 'T' of int32 is not in the list of allowed values",
        )


@sweep(
    "flags-axis-{axis}-{keepdims}-sweep", axis=["all", "0", "1", "both"], keepdims=["keep", "drop"]
)
def logsumexp_flags(ctx, axis, keepdims):
    import tensorflow as tf
    from tfhelp import reduction_flags

    reduction_flags(ctx, tf.math.reduce_logsumexp, _logsumexp, axis, keepdims)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def logsumexp_hessian(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_hessian

    def href(x):
        p = np.exp(x - _logsumexp(x))
        return np.diag(p) - np.outer(p, p)

    swept_hessian(ctx, tf.math.reduce_logsumexp, href, dtype, mode)


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def logsumexp_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx,
        lambda t: tf.math.reduce_logsumexp(t, axis=-1),
        lambda x: _logsumexp(x, axis=-1),
        "float32",
        mode,
        scale=4.0,
    )
