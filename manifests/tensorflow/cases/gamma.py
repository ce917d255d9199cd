"""tf.random.gamma: sample moments against alpha/beta, shapes, dtypes, seeds, reparameterized gradient."""

import numpy as np

from portbench_runner.api import case

N = 200_000


def _moments_ok(ctx, s, alpha, beta):
    mean, var = alpha / beta, alpha / beta**2
    se_mean = np.sqrt(var / s.size)
    # The sample variance's standard error for a gamma: sqrt((mu4 - var^2) / n), mu4 = 3a(a+2)/b^4.
    se_var = np.sqrt((3 * alpha * (alpha + 2) / beta**4 - var**2) / s.size)
    ctx.check(abs(s.mean() - mean) < 6 * se_mean, f"mean {s.mean()} vs {mean}")
    ctx.check(abs(s.var() - var) < 6 * se_var, f"variance {s.var()} vs {var}")
    ctx.check(bool((s > 0).all()), "a gamma sample is not positive", "other")


@case("float32-alpha2", dtype="float32", alpha=2.0, beta=1.0)
@case("float64-alpha05-beta3", dtype="float64", alpha=0.5, beta=3.0)
@case("float32-small-alpha", dtype="float32", alpha=0.2, beta=1.0)
@case("float16-alpha5", dtype="float16", alpha=5.0, beta=2.0)
def moments(ctx, dtype, alpha, beta):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf

    out = ctx.measure(tf.random.gamma, [N], alpha, beta, dtype=getattr(tf, dtype), seed=11)
    ctx.check(out.dtype.name == dtype, f"dtype {out.dtype.name}", "type")
    _moments_ok(ctx, ctx.to_numpy(out).astype("float64"), alpha, beta)


@case("shape-is-shape-plus-batch")
def shapes(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf

    alpha = ctx.put(np.array([[1.0, 2.0, 3.0]], dtype="float32"))
    beta = ctx.put(np.array([[1.0], [2.0]], dtype="float32"))
    out = ctx.measure(tf.random.gamma, [5, 4], alpha, beta)
    ctx.check(out.shape.as_list() == [5, 4, 2, 3], f"shape {out.shape}", "other")


@case("stateless-seed-reproducible")
def stateless(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf

    out = ctx.measure(tf.random.stateless_gamma, [1000], seed=[1, 2], alpha=3.0)
    again = tf.random.stateless_gamma([1000], seed=[1, 2], alpha=3.0)
    ctx.check_equal(out, ctx.to_numpy(again))


@case("gradient-mean-is-one-over-beta")
def gradient(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf

    alpha = tf.Variable(np.array([2.0, 0.7]), dtype=tf.float64)
    beta = ctx.put(np.array([1.0, 4.0]))

    def grad():
        with tf.GradientTape() as tape:
            s = tf.random.gamma([N], alpha, beta, dtype=tf.float64, seed=3)
            total = tf.reduce_mean(s, axis=0)
        return tape.gradient(total, alpha)

    out = ctx.measure(grad)
    # E[dX/dalpha] = d E[X] / dalpha = 1 / beta.
    ctx.check_close(out, np.array([1.0, 0.25]), rtol=0.02, atol=0.0)
