"""tf.random.gamma: sample moments against alpha/beta, shapes, dtypes, seeds, reparameterized gradient."""

import numpy as np
from tfhelp import EAGER_GRAPH, MODES

from portbench_runner.api import case, sweep

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


#: The dtypes RandomGamma samples in on the CPU (bfloat16 and integers are refused).
GAMMA_DTYPES = ["float16", "float32", "float64"]


# Each sampling dtype, eager and in a tf.function (RandomGamma has no XLA kernel), with a
# batch of (alpha, beta) pairs: per-pair moments within generous bounds, positivity, shape
# and dtype; fixed op seed. New names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=GAMMA_DTYPES, mode=EAGER_GRAPH)
def gamma_dtypes(ctx, dtype, mode):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf
    from tfhelp import by_mode, check_dtype

    alphas = np.array([0.6, 3.0], dtype=dtype)
    betas = np.array([[1.0], [2.5]], dtype=dtype)
    fn = by_mode(
        ctx, lambda a, b: tf.random.gamma([20_000], a, b, dtype=getattr(tf, dtype), seed=5), mode
    )
    out = ctx.measure(fn, ctx.put(alphas), ctx.put(betas))
    check_dtype(ctx, out, dtype)
    ctx.check(tuple(out.shape) == (20_000, 2, 2), f"shape {tuple(out.shape)}", "other")
    s = ctx.to_numpy(out).astype("float64")
    for i, beta in enumerate(betas[:, 0].astype("float64")):
        for j, alpha in enumerate(alphas.astype("float64")):
            _moments_ok(ctx, s[:, i, j], alpha, beta)


# The reparameterized gradient in float32 and float64, eager and in a tf.function:
# E[dX/dbeta] = -alpha / beta^2 (X = G / beta with G ~ Gamma(alpha, 1)).
@sweep("grad-beta-{dtype}-{mode}-sweep", dtype=["float32", "float64"], mode=EAGER_GRAPH)
def gamma_grad_dtypes(ctx, dtype, mode):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf
    from tfhelp import by_mode, check_dtype

    alpha = ctx.put(np.array([2.0, 0.8], dtype=dtype))
    beta = ctx.put(np.array([1.0, 2.0], dtype=dtype))

    def grad(a, b):
        with tf.GradientTape() as tape:
            tape.watch(b)
            s = tf.random.gamma([50_000], a, b, dtype=getattr(tf, dtype), seed=9)
            m = tf.reduce_mean(s, axis=0)
        return tape.gradient(m, b)

    out = ctx.measure(by_mode(ctx, grad, mode), alpha, beta)
    check_dtype(ctx, out, dtype)
    ctx.check_close(out, np.array([-2.0, -0.8 / 4.0]), rtol=0.03, atol=0.0)


@case("empty-sample-shape")
def gamma_empty(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf

    out = ctx.measure(tf.random.gamma, [0], ctx.put(np.array([1.0, 2.0], "float32")), seed=1)
    ctx.check(tuple(out.shape) == (0, 2), f"shape {tuple(out.shape)}", "other")


# Golden values: tf.random.stateless_gamma([4, 2], seed=[7, 11], alpha=[0.5, 3.0],
# beta=[1.0, 2.0]) in float32 and float64, recorded by running TensorFlow itself on the CPU
# at 2.11.0 (paper) and again at 2.20.0 (current): the same numbers, eager and in a
# tf.function (XLA has no kernel for the stateless gamma op in either release: a finding its
# xla cases show). TensorFlow promises stateless streams consistent between runs, and
# between CPU and GPU, within a release; not across releases, nor on TPUs. Rows are (first
# release, values); a release that changes the stream fails the case and gets a new row.
GOLDEN_STATELESS_GAMMA = {
    "float32": (
        (
            "2.11",
            [
                [0.12291134148836136, 0.733953058719635],
                [0.6412787437438965, 0.5515519976615906],
                [1.7718313932418823, 0.9377873539924622],
                [0.21873266994953156, 2.460259437561035],
            ],
        ),
    ),
    "float64": (
        (
            "2.11",
            [
                [0.12291134419468544, 0.7339530546107027],
                [0.6412787276579851, 0.5515519916141136],
                [1.7718313379227755, 0.9377873834748118],
                [0.2187326727053427, 2.4602594710664563],
            ],
        ),
    ),
}


# The study's other kinds of paths: golden values of the stateless sampler (above; a few
# ulps allowed, for devices' own log and exp), and the documented errors for bad arguments
# (an integer dtype, a negative sample shape, a stateless seed of three words: exact type
# and message). New names; the cases above keep their ids.
@sweep("golden-stateless-{dtype}-{mode}-sweep", dtype=["float32", "float64"], mode=MODES)
def gamma_golden(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import by_mode, check_golden

    if ctx.flavor == "tpu":
        ctx.skip("TensorFlow promises stateless streams on CPUs and GPUs only")
    alpha = ctx.put(np.array([0.5, 3.0], dtype=dtype))
    beta = ctx.put(np.array([1.0, 2.0], dtype=dtype))
    fn = by_mode(
        ctx,
        lambda a, b: tf.random.stateless_gamma(
            [4, 2], seed=[7, 11], alpha=a, beta=b, dtype=getattr(tf, dtype)
        ),
        mode,
    )
    out = ctx.measure(fn, alpha, beta)
    check_golden(
        ctx,
        out,
        GOLDEN_STATELESS_GAMMA[dtype],
        what="stateless_gamma",
        rtol=1e-6 if dtype == "float32" else 1e-14,
    )


@sweep("error-{form}", form=["integer-dtype", "negative-shape", "three-word-seed"])
def gamma_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    call, exc, pattern = {
        "integer-dtype": (
            lambda: tf.random.gamma([2], 1.0, dtype=tf.int32),
            TypeError,
            r"Cannot convert 1\.0 to EagerTensor of dtype int32",
        ),
        "negative-shape": (
            lambda: tf.random.gamma([-1], 1.0),
            tf.errors.InvalidArgumentError,
            r"Dimension -1 must be >= 0",
        ),
        "three-word-seed": (
            lambda: tf.random.stateless_gamma([2], seed=[1, 2, 3], alpha=1.0),
            tf.errors.InvalidArgumentError,
            r"seed must have shape \[2\], not \[3\]",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)
