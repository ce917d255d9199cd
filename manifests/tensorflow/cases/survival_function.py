"""tf.compat.v1.distributions.Normal.survival_function: 1 - cdf, accurate in the right tail; gradients."""

import math

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, by_mode, v1_graph, v1_session

from portbench_runner.api import case, sweep

NAME = "tensorflow.compat.v1.distributions.Normal"


def _sf(x, mu, sigma):
    return np.vectorize(lambda z: 0.5 * math.erfc(z / math.sqrt(2)))(
        (np.asarray(x, dtype="float64") - mu) / sigma
    )


@case("float32-eager", dtype="float32")
@case("float64-graph", dtype="float64", mode="graph")
@case("float32-xla", dtype="float32", mode="xla")
@case("float32-large", dtype="float32", n=1_000_000)
def values(ctx, dtype, mode="eager", n=512):
    normal = ctx.require(NAME)
    x = (ctx.rng.standard_normal(n) * 2).astype(dtype)
    fn = by_mode(
        ctx,
        lambda v: normal(loc=np.array(0.5, dtype), scale=np.array(2.0, dtype)).survival_function(v),
        mode,
    )
    out = ctx.measure(fn, ctx.put(x))
    ctx.check_close(
        out,
        _sf(x, 0.5, 2.0),
        dtype=dtype,
        rtol=1e-5 if dtype == "float32" else 1e-9,
        atol=1e-6 if dtype == "float32" else 1e-12,
    )


@case("right-tail-relative")
def tail(ctx):
    normal = ctx.require(NAME)
    x = np.array([5.0, 10.0, 20.0, 30.0])
    out = ctx.measure(
        normal(loc=np.float64(0.0), scale=np.float64(1.0)).survival_function, ctx.put(x)
    )
    # 1 - cdf would be 0 here; the survival function keeps relative precision (e.g. 7.6e-24 at 10).
    ctx.check_close(out, _sf(x, 0.0, 1.0), rtol=1e-6, atol=0.0)


@case("gradient-is-minus-pdf")
def gradient(ctx):
    import tensorflow as tf

    normal = ctx.require(NAME)
    x_np = ctx.rng.standard_normal(32)
    x = ctx.put(x_np)

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(
                normal(loc=np.float64(0.0), scale=np.float64(1.0)).survival_function(x)
            )
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    ctx.check_close(out, -np.exp(-0.5 * x_np**2) / np.sqrt(2 * np.pi), dtype="float64")


@case("tf1-session")
def session(ctx):
    import tensorflow as tf

    normal = ctx.require(NAME)
    with v1_graph(ctx) as graph:
        p = tf.compat.v1.placeholder(tf.float64, [None])
        sf = normal(loc=np.float64(1.0), scale=np.float64(0.5)).survival_function(p)
    with v1_session(graph) as sess:
        out = ctx.measure(sess.run, sf, {p: [0.0, 1.0, 2.0]})
    ctx.check_close(out, _sf([0.0, 1.0, 2.0], 1.0, 0.5), dtype="float64")


# The float dtypes the Normal's cdf/survival function take (float32 and float64: its ndtr
# refuses float16 and bfloat16 in Python, asserted below), eager, in a tf.function and
# under XLA, out to 6 sigma; new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=["float32", "float64"], mode=MODES)
def values_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import draw, placed

    normal = ctx.require(NAME)
    x, exact = placed(ctx, draw(ctx, (128,), dtype, -12, 12), dtype)

    def fn(v):
        one = tf.ones((), v.dtype)
        return normal(loc=one * 0.5, scale=one * 2.0).survival_function(v)

    out = ctx.measure(by_mode(ctx, fn, mode), x)
    tol = 2e-5 if dtype == "float32" else 1e-12
    ctx.check_close(out, _sf(exact, 0.5, 2.0), rtol=tol, atol=tol * 0.1)


@sweep("{dtype}-{mode}-refused-sweep", dtype=["float16", "bfloat16"], mode=MODES)
def half_refused(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import raises

    normal = ctx.require(NAME)
    x = ctx.put(np.array([0.0, 1.0], dtype="float32"), dtype=dtype)

    def fn(v):
        one = tf.ones((), v.dtype)
        return normal(loc=one * 0.0, scale=one).survival_function(v)

    out = ctx.measure(raises(lambda: by_mode(ctx, fn, mode)(x), TypeError))
    ctx.check(out is not None, f"survival_function of a {dtype} Normal raised nothing", "other")


# d/dx S(x) = -pdf(x), in both dtypes and every mode.
@sweep("grad-{dtype}-{mode}-sweep", dtype=["float32", "float64"], mode=MODES)
def gradient_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad

    normal = ctx.require(NAME)

    def fn(v):
        one = tf.ones((), v.dtype)
        return normal(loc=one * 0.5, scale=one * 2.0).survival_function(v)

    def dref(x):
        return -np.exp(-0.5 * ((x - 0.5) / 2.0) ** 2) / (2.0 * np.sqrt(2 * np.pi))

    swept_grad(ctx, fn, dref, dtype, mode, lo=-6, hi=6)


# The study's other kinds of paths: the documented error for integer parameters (exact type
# and message), the second derivative of the survival function through nested
# GradientTapes (z phi(z) / scale**2, z = (x - loc) / scale) in float32 and float64, and
# tf.vectorized_map of the survival function with a per-row loc, eager, in a tf.function
# and under XLA. New names; the cases above keep their ids.
@case("error-integer-parameters")
def sf_error(ctx):
    from tfhelp import check_raises

    normal = ctx.require(NAME)
    check_raises(
        ctx, lambda: normal(0, 1), ValueError, r"Expected floating point type, got <dtype: 'int32'>"
    )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def sf_grad2(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad2

    normal = ctx.require(NAME)

    def d2(x):
        z = (x - 0.5) / 1.5
        return z * np.exp(-(z**2) / 2) / np.sqrt(2 * np.pi) / 1.5**2

    swept_grad2(
        ctx,
        lambda t: normal(tf.constant(0.5, t.dtype), tf.constant(1.5, t.dtype)).survival_function(t),
        d2,
        dtype,
        mode,
        lo=-4.0,
        hi=4.0,
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def sf_vectorized_map(ctx, mode):
    from tfhelp import swept_vectorized_map

    normal = ctx.require(NAME)
    swept_vectorized_map(
        ctx,
        lambda t: normal(t[0], 1.5).survival_function(t),
        lambda x: _sf(x, x[0], 1.5),
        "float32",
        mode,
        scale=4.0,
    )
