"""tf.compat.v1.distributions.Laplace.log_survival_function: both branches, far tails, gradients.

log S(x) = log(1 - exp((x-loc)/scale)/2) left of loc, -log 2 - (x-loc)/scale right of it.
"""

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, REAL_FLOATS, by_mode, v1_graph, v1_session

from portbench_runner.api import case, sweep

NAME = "tensorflow.compat.v1.distributions.Laplace"


def _log_sf(x, loc, scale):
    z = (np.asarray(x, dtype="float64") - loc) / scale
    return np.where(z < 0, np.log1p(-0.5 * np.exp(np.minimum(z, 0))), -np.log(2.0) - z)


@case("float32-eager", dtype="float32")
@case("float64-graph", dtype="float64", mode="graph")
@case("float32-xla", dtype="float32", mode="xla")
@case("float32-large", dtype="float32", n=1_000_000)
def values(ctx, dtype, mode="eager", n=512):
    laplace = ctx.require(NAME)
    x = (ctx.rng.standard_normal(n) * 4).astype(dtype)
    fn = by_mode(
        ctx,
        lambda v: laplace(
            loc=np.array(1.0, dtype), scale=np.array(1.5, dtype)
        ).log_survival_function(v),
        mode,
    )
    out = ctx.measure(fn, ctx.put(x))
    tol = 1e-5 if dtype == "float32" else 1e-12
    ctx.check_close(out, _log_sf(x, 1.0, 1.5), rtol=tol, atol=tol)


@case("far-tails")
def tails(ctx):
    laplace = ctx.require(NAME)
    x = np.array([-200.0, -40.0, 0.0, 40.0, 500.0])
    out = ctx.measure(
        laplace(loc=np.float64(0.0), scale=np.float64(1.0)).log_survival_function, ctx.put(x)
    )
    # The right tail is linear (no log of an underflowed 0); the left tail tends to log 1 = 0.
    ctx.check_close(out, _log_sf(x, 0.0, 1.0), rtol=1e-12, atol=1e-15)


@case("batch-broadcast")
def batch(ctx):
    laplace = ctx.require(NAME)
    loc = np.array([[0.0], [2.0]])
    scale = np.array([1.0, 0.5, 3.0])
    x = ctx.rng.standard_normal((2, 3))
    out = ctx.measure(
        laplace(loc=ctx.put(loc), scale=ctx.put(scale)).log_survival_function, ctx.put(x)
    )
    ctx.check_close(out, _log_sf(x, loc, scale), dtype="float64")


@case("gradient-wrt-x")
def gradient(ctx):
    import tensorflow as tf

    laplace = ctx.require(NAME)
    x_np = np.array([-3.0, -0.5, 0.5, 4.0])
    x = ctx.put(x_np)

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(
                laplace(loc=np.float64(0.0), scale=np.float64(1.0)).log_survival_function(x)
            )
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    left = -0.5 * np.exp(x_np) / (1 - 0.5 * np.exp(x_np))
    ctx.check_close(out, np.where(x_np < 0, left, -1.0), dtype="float64")


@case("tf1-session")
def session(ctx):
    import tensorflow as tf

    laplace = ctx.require(NAME)
    with v1_graph(ctx) as graph:
        p = tf.compat.v1.placeholder(tf.float32, [None])
        out_t = laplace(loc=0.0, scale=2.0).log_survival_function(p)
    with v1_session(graph) as sess:
        out = ctx.measure(sess.run, out_t, {p: [-1.0, 0.0, 3.0]})
    ctx.check_close(out, _log_sf([-1.0, 0.0, 3.0], 0.0, 2.0), dtype="float32")


# Every float dtype Laplace takes, eager, in a tf.function and under XLA, on both branches
# (loc and scale exact in bfloat16); new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def values_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype, check_swept, draw, placed

    laplace = ctx.require(NAME)
    x, exact = placed(ctx, draw(ctx, (128,), dtype, -6, 6), dtype)

    def fn(v):
        one = tf.ones((), v.dtype)
        return laplace(loc=one * 0.5, scale=one * 1.5).log_survival_function(v)

    out = ctx.measure(by_mode(ctx, fn, mode), x)
    check_dtype(ctx, out, dtype)
    check_swept(ctx, out, _log_sf(exact, 0.5, 1.5), scale=4.0)


# d/dx log S(x): -1/scale right of loc, -(e^z / 2) / (scale (1 - e^z / 2)) left of it.
@sweep("grad-{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def gradient_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad

    laplace = ctx.require(NAME)

    def fn(v):
        one = tf.ones((), v.dtype)
        return laplace(loc=one * 0.5, scale=one * 1.5).log_survival_function(v)

    def dref(x):
        half_ez = 0.5 * np.exp(np.minimum((x - 0.5) / 1.5, 0))
        return np.where(x < 0.5, -half_ez / (1.5 * (1 - half_ez)), -1 / 1.5)

    swept_grad(ctx, fn, dref, dtype, mode, lo=-5, hi=5, scale=4.0)


def _log_sf_d2(x, loc, scale):
    """d2/dx2 of the Laplace log survival function: 0 right of loc; left of it, with
    u = exp((x - loc) / scale) / 2, -(u / scale**2) / (1 - u)**2."""
    z = (np.asarray(x, dtype="float64") - loc) / scale
    u = 0.5 * np.exp(np.minimum(z, 0))
    return np.where(z < 0, -(u / scale**2) / (1 - u) ** 2, 0.0)


# The study's other kinds of paths: the documented error for a negative scale under
# validate_args (exact type and message), the second derivative through nested
# GradientTapes on both branches in float32 and float64, and tf.vectorized_map with a
# per-row loc, eager, in a tf.function and under XLA. New names; the cases above keep
# their ids.
@case("error-negative-scale")
def log_sf_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    laplace = ctx.require(NAME)
    check_raises(
        ctx,
        lambda: laplace(0.0, -1.0, validate_args=True).log_survival_function(1.0),
        tf.errors.InvalidArgumentError,
        r"Condition x > 0 did not hold",
    )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def log_sf_grad2(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad2

    laplace = ctx.require(NAME)
    swept_grad2(
        ctx,
        lambda t: laplace(
            tf.constant(0.25, t.dtype), tf.constant(1.5, t.dtype)
        ).log_survival_function(t),
        lambda x: _log_sf_d2(x, 0.25, 1.5),
        dtype,
        mode,
        lo=-4.0,
        hi=4.0,
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def log_sf_vectorized_map(ctx, mode):
    from tfhelp import swept_vectorized_map

    laplace = ctx.require(NAME)
    swept_vectorized_map(
        ctx,
        lambda t: laplace(t[0], 1.5).log_survival_function(t),
        lambda x: _log_sf(x, x[0], 1.5),
        "float32",
        mode,
        scale=4.0,
    )
