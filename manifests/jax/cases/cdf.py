"""jax.scipy.stats.*.cdf: the CDFs the study timed (norm, poisson, bernoulli, ...) against
closed forms computed on the host."""

import math

import numpy as np

from portbench_runner.api import case

NDTR = np.vectorize(lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0)))


def _poisson_cdf(k, mu):
    return (
        sum(math.exp(-mu) * mu**i / math.factorial(i) for i in range(math.floor(k) + 1))
        if k >= 0
        else 0.0
    )


@case("norm-float32", dtype="float32")
@case("norm-float64", dtype="float64")
@case("norm-jit", dtype="float32", jit=True)
@case("norm-loc-scale", dtype="float64", loc=2.0, scale=3.0)
def norm_cdf(ctx, dtype, jit=False, loc=0.0, scale=1.0):
    import jax
    from jax.scipy.stats import norm

    x = ctx.rng.uniform(-6, 6, 512).astype(dtype)
    f = lambda v: norm.cdf(v, loc, scale)  # noqa: E731
    out = ctx.measure(jax.jit(f) if jit else f, ctx.put(x))
    ctx.check_close(
        out,
        NDTR((x.astype("float64") - loc) / scale),
        dtype=dtype,
        atol=1e-6 if dtype == "float32" else 1e-12,
    )


@case("poisson")
def poisson_cdf(ctx):
    from jax.scipy.stats import poisson

    k = np.arange(0, 20, dtype="float64")
    out = ctx.measure(poisson.cdf, ctx.put(k), 4.5)
    ctx.check_close(out, [_poisson_cdf(v, 4.5) for v in k], dtype="float64", rtol=1e-9, atol=1e-12)


@case("bernoulli")
def bernoulli_cdf(ctx):
    from jax.scipy.stats import bernoulli

    k = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    out = ctx.measure(bernoulli.cdf, ctx.put(k), 0.3)
    ctx.check_close(out, [0.0, 0.7, 0.7, 1.0, 1.0], dtype="float64")


@case("logistic-and-laplace")
def other_cdfs(ctx):
    from jax.scipy.stats import laplace, logistic

    x = np.linspace(-5, 5, 41)
    out = ctx.measure(lambda v: (logistic.cdf(v), laplace.cdf(v)), ctx.put(x))
    ctx.check_close(out[0], 1 / (1 + np.exp(-x)), dtype="float64")
    ctx.check_close(out[1], np.where(x < 0, 0.5 * np.exp(x), 1 - 0.5 * np.exp(-x)), dtype="float64")
