"""tf.compat.v1.distributions.Normal: log_prob, cdf, sampling moments, entropy, gradients, validation."""

import math

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, REAL_FLOATS, by_mode, raises

from portbench_runner.api import case, sweep

NAME = "tensorflow.compat.v1.distributions.Normal"


def _log_pdf(x, mu, sigma):
    return -0.5 * ((x - mu) / sigma) ** 2 - np.log(sigma) - 0.5 * np.log(2 * np.pi)


@case("float32-log-prob", dtype="float32")
@case("float64-log-prob-graph", dtype="float64", mode="graph")
@case("float32-log-prob-xla", dtype="float32", mode="xla")
@case("float32-log-prob-large", dtype="float32", n=1_000_000)
def log_prob(ctx, dtype, mode="eager", n=256):
    ctx.not_comparable("draws from the device's random generator")
    normal = ctx.require(NAME)
    mu, sigma = np.array(1.5, dtype=dtype), np.array(2.0, dtype=dtype)
    x = ctx.rng.standard_normal(n).astype(dtype) * 3
    fn = by_mode(ctx, lambda m, s, v: normal(loc=m, scale=s).log_prob(v), mode)
    out = ctx.measure(fn, ctx.put(mu), ctx.put(sigma), ctx.put(x))
    ctx.check_close(
        out,
        _log_pdf(x.astype("float64"), 1.5, 2.0),
        dtype=dtype,
        rtol=1e-5 if dtype == "float32" else None,
    )


@case("batch-cdf-broadcast")
def cdf(ctx):
    ctx.not_comparable("draws from the device's random generator")
    normal = ctx.require(NAME)
    mu = np.array([[0.0], [1.0], [-2.0]])
    sigma = np.array([0.5, 1.0, 3.0])
    x = ctx.rng.standard_normal((3, 3))
    dist = normal(loc=ctx.put(mu), scale=ctx.put(sigma))
    out = ctx.measure(dist.cdf, ctx.put(x))
    expected = np.vectorize(lambda z: 0.5 * math.erfc(-z / math.sqrt(2)))((x - mu) / sigma)
    ctx.check(dist.batch_shape.as_list() == [3, 3], f"batch shape {dist.batch_shape}", "other")
    ctx.check_close(out, expected, dtype="float64")


@case("sample-moments")
def sample(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf

    normal = ctx.require(NAME)
    tf.random.set_seed(1234)
    dist = normal(loc=ctx.put(np.float32(-3.0)), scale=ctx.put(np.float32(0.5)))
    out = ctx.measure(dist.sample, 200_000)
    s = ctx.to_numpy(out).astype("float64")
    # Standard errors for n = 2e5: mean 0.5/447 ~ 1.1e-3, std ~ 8e-4; allow about 5 of them.
    ctx.check(
        abs(s.mean() + 3.0) < 6e-3 and abs(s.std() - 0.5) < 5e-3, f"mean {s.mean()}, std {s.std()}"
    )


@case("entropy-and-stddev")
def entropy(ctx):
    ctx.not_comparable("draws from the device's random generator")
    normal = ctx.require(NAME)
    sigma = np.array([0.1, 1.0, 10.0])
    dist = normal(loc=ctx.put(np.zeros(3)), scale=ctx.put(sigma))
    out = ctx.measure(dist.entropy)
    ctx.check_close(out, 0.5 * np.log(2 * np.pi * np.e * sigma**2), dtype="float64")
    ctx.check_close(dist.stddev(), sigma, dtype="float64", what="stddev")


@case("gradient-of-log-prob")
def gradient(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf

    normal = ctx.require(NAME)
    x_np = ctx.rng.standard_normal(16)
    mu = tf.Variable(0.3, dtype=tf.float64)
    sigma = tf.Variable(1.7, dtype=tf.float64)
    x = ctx.put(x_np)

    def grads():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(normal(loc=mu, scale=sigma).log_prob(x))
        return tape.gradient(y, [mu, sigma])

    g_mu, g_sigma = ctx.measure(grads)
    z = (x_np - 0.3) / 1.7
    ctx.check_close(g_mu, (z / 1.7).sum(), dtype="float64", what="d/dloc")
    ctx.check_close(g_sigma, ((z**2 - 1) / 1.7).sum(), dtype="float64", what="d/dscale")


@case("validate-args-rejects-negative-scale")
def validate(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf

    normal = ctx.require(NAME)
    make = lambda: normal(loc=0.0, scale=-1.0, validate_args=True).log_prob(0.0)  # noqa: E731
    out = ctx.measure(raises(make, tf.errors.InvalidArgumentError, ValueError))
    ctx.check(out is not None, "a negative scale passed validation", "other")


# Every float dtype the Normal takes for log_prob, entropy and sampling (its cdf refuses
# float16 and bfloat16: see the survival_function cases), eager, in a tf.function and under
# XLA; loc 1.5 and scale 2 are exact in every dtype. New names, so the cases above keep
# their ids.
@sweep("log-prob-{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def log_prob_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype, check_swept, draw, placed

    normal = ctx.require(NAME)
    x, exact = placed(ctx, draw(ctx, (128,), dtype, -5, 8), dtype)

    def fn(v):
        one = tf.ones((), v.dtype)
        dist = normal(loc=one * 1.5, scale=one * 2.0)
        return dist.log_prob(v), dist.entropy()

    lp, ent = ctx.measure(by_mode(ctx, fn, mode), x)
    check_dtype(ctx, lp, dtype)
    check_swept(ctx, lp, _log_pdf(exact, 1.5, 2.0), scale=4.0)
    check_swept(ctx, ent, 0.5 * np.log(2 * np.pi * np.e * 4.0), scale=4.0)


# Samples of each dtype and mode, seeded: shape, dtype and moments of 20000 draws (standard
# errors 0.014 for the mean and 0.01 for the std; the bounds allow 5 of them plus the
# rounding of bfloat16).
@sweep("sample-{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def sample_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype

    ctx.not_comparable("draws from the device's random generator")
    normal = ctx.require(NAME)

    def fn():
        one = tf.ones((), getattr(tf, dtype))
        return normal(loc=one * -3.0, scale=one * 2.0).sample((100, 200), seed=7)

    out = ctx.measure(by_mode(ctx, fn, mode))
    check_dtype(ctx, out, dtype)
    ctx.check(out.shape.as_list() == [100, 200], f"shape {out.shape}", "other")
    s = ctx.to_numpy(out).astype("float64")
    ctx.check(
        abs(s.mean() + 3.0) < 0.1 and abs(s.std() - 2.0) < 0.1, f"mean {s.mean()}, std {s.std()}"
    )


# d log p / d loc = z / sigma, d log p / d scale = (z^2 - 1) / sigma, per dtype and mode.
@sweep("grad-{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def gradient_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_swept, draw, placed

    normal = ctx.require(NAME)
    x, exact = placed(ctx, draw(ctx, (32,), dtype, -3, 3), dtype)
    mu = ctx.put(np.array(0.5, dtype="float32"), dtype=dtype)
    sigma = ctx.put(np.array(1.5, dtype="float32"), dtype=dtype)

    def grads(v, m, s):
        with tf.GradientTape() as tape:
            tape.watch([m, s])
            y = tf.reduce_sum(normal(loc=m, scale=s).log_prob(v))
        return tape.gradient(y, [m, s])

    g_mu, g_sigma = ctx.measure(by_mode(ctx, grads, mode), x, mu, sigma)
    z = (exact - 0.5) / 1.5
    check_swept(ctx, g_mu, (z / 1.5).sum(), scale=16.0)
    check_swept(ctx, g_sigma, ((z**2 - 1) / 1.5).sum(), scale=16.0)


# The study's other kinds of paths: the documented errors for bad parameters (a negative
# scale under validate_args, loc and scale of different dtypes: exact type and message), the
# second derivative of log_prob in x through nested GradientTapes (-1/scale**2) in float32
# and float64, and tf.vectorized_map of log_prob with a per-row loc, eager, in a tf.function
# and under XLA. New names; the cases above keep their ids.
@sweep("error-{form}", form=["negative-scale", "mixed-dtypes"])
def normal_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    normal = ctx.require(NAME)
    if form == "negative-scale":
        check_raises(
            ctx,
            lambda: normal(0.0, -1.0, validate_args=True).log_prob(1.0),
            tf.errors.InvalidArgumentError,
            r"Condition x > 0 did not hold",
        )
    else:
        check_raises(
            ctx,
            lambda: normal(tf.constant(0.0, tf.float32), tf.constant(1.0, tf.float64)),
            ValueError,
            r"must be of the same type",
        )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def normal_grad2(ctx, dtype, mode):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf
    from tfhelp import swept_grad2

    normal = ctx.require(NAME)
    swept_grad2(
        ctx,
        lambda t: normal(tf.constant(1.5, t.dtype), tf.constant(2.0, t.dtype)).log_prob(t),
        lambda x: np.full_like(x, -0.25),
        dtype,
        mode,
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def normal_vectorized_map(ctx, mode):
    ctx.not_comparable("draws from the device's random generator")
    from tfhelp import swept_vectorized_map

    normal = ctx.require(NAME)
    swept_vectorized_map(
        ctx,
        lambda t: normal(t[0], 2.0).log_prob(t),
        lambda x: _log_pdf(x, x[0], 2.0),
        "float32",
        mode,
        scale=4.0,
    )
