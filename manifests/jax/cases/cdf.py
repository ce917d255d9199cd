"""jax.scipy.stats.*.cdf: the CDFs the study timed (norm, poisson, bernoulli, ...) against
closed forms computed on the host."""

import math

import numpy as np
from _jaxhelp import FLOATS, FLOATS_32_64, GRAD_FLOATS, MODES

from portbench_runner.api import case, sweep

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


# The continuous CDFs against closed forms in float64 on the host.
CLOSED_FORMS = {
    "norm": NDTR,
    "logistic": lambda x: 1 / (1 + np.exp(-x)),
    "laplace": lambda x: np.where(x < 0, 0.5 * np.exp(x), 1 - 0.5 * np.exp(-x)),
    "expon": lambda x: np.where(x < 0, 0.0, -np.expm1(-np.maximum(x, 0))),
    "uniform": lambda x: np.clip(x, 0.0, 1.0),
    "cauchy": lambda x: 0.5 + np.arctan(x) / np.pi,
}


# Each continuous distribution's cdf in every float width it takes on the CPU, eager and
# under jax.jit. norm.cdf refuses float16 and bfloat16 by design (its ndtr documents
# float32/float64 only), so those two are left out; new names, so the cases above keep
# their ids.
@sweep(
    "{dist}-{dtype}-{mode}-sweep",
    dist=("norm", "logistic", "laplace", "expon", "uniform", "cauchy"),
    dtype=FLOATS,
    mode=MODES,
    exclude=[{"dist": "norm", "dtype": "float16"}, {"dist": "norm", "dtype": "bfloat16"}],
)
def cdf_dtypes(ctx, dist, dtype, mode):
    from _jaxhelp import check_swept, draw, placed

    x, exact = placed(ctx, draw(ctx, (200,), dtype, -4, 4), dtype)
    # expon.cdf and uniform.cdf came later than 0.4.13 (which has their pdfs only): skip there.
    cdf = ctx.require(f"jax.scipy.stats.{dist}.cdf")
    out = ctx.measure(ctx.in_mode(mode, cdf), x)
    check_swept(ctx, out, CLOSED_FORMS[dist](exact), scale=4.0)


# poisson.cdf at integer and float counts k, eager and under jax.jit (two widths only: each
# case compiles the incomplete gamma function, seconds of the cell's budget).
@sweep("poisson-{dtype}-{mode}-sweep", dtype=("int32", "float64"), mode=MODES)
def poisson_cdf_dtypes(ctx, dtype, mode):
    from jax.scipy.stats import poisson

    k = np.arange(-1, 15).astype(dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda v: poisson.cdf(v, 3.5)), ctx.put(k, dtype=dtype))
    expected = [_poisson_cdf(float(v), 3.5) for v in k]
    tol = 1e-5 if str(out.dtype) == "float32" else 1e-12
    ctx.check_close(out, expected, rtol=tol, atol=tol)


# The derivative of a cdf is its pdf: norm in float32/float64 (it takes no half widths),
# logistic in bfloat16 too.
@sweep("grad-norm-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def norm_cdf_grad_dtypes(ctx, dtype, mode):
    from _jaxhelp import swept_grad
    from jax.scipy.stats import norm

    swept_grad(ctx, norm.cdf, lambda x: np.exp(-x * x / 2) / np.sqrt(2 * np.pi), dtype, mode)


@sweep("grad-logistic-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def logistic_cdf_grad_dtypes(ctx, dtype, mode):
    from _jaxhelp import swept_grad
    from jax.scipy.stats import logistic

    def pdf(x):
        s = 1 / (1 + np.exp(-x))
        return s * (1 - s)

    swept_grad(ctx, logistic.cdf, pdf, dtype, mode)


# The study's other kinds of paths: the documented errors for bad arguments (a Python list,
# a complex x: exact type and message), the full grid of norm.cdf's optional arguments (loc
# and scale each absent, a scalar or a broadcast array), the second derivatives of norm and
# logistic cdfs (the pdfs' slopes) in float32 and float64, and jax.vmap along a leading and
# an inner axis, eager and under jax.jit. New names; the cases above keep their ids.
@sweep("error-{form}", form=["list-input", "complex-input"])
def cdf_errors(ctx, form):
    from _jaxhelp import check_raises
    from jax.scipy.stats import norm

    if form == "list-input":
        check_raises(
            ctx, lambda: norm.cdf([0.5, 1.0]), TypeError, r"cdf requires ndarray or scalar"
        )
    else:
        z = ctx.put(np.ones(2, dtype="complex64"))
        check_raises(ctx, lambda: norm.cdf(z), TypeError, r"x\.dtype=complex64 is not supported")


@sweep(
    "flags-loc-{loc}-scale-{scale}-sweep",
    loc=["none", "scalar", "array"],
    scale=["none", "scalar", "array"],
)
def norm_cdf_flags(ctx, loc, scale):
    from jax.scipy.stats import norm

    x = ctx.rng.uniform(-4, 4, (6, 5))
    locs = {"none": None, "scalar": 0.75, "array": ctx.rng.uniform(-1, 1, (5,))}
    scales = {"none": None, "scalar": 2.5, "array": ctx.rng.uniform(0.5, 3, (6, 1))}
    kw = {}
    if locs[loc] is not None:
        kw["loc"] = ctx.put(locs[loc]) if loc == "array" else locs[loc]
    if scales[scale] is not None:
        kw["scale"] = ctx.put(scales[scale]) if scale == "array" else scales[scale]
    out = ctx.measure(lambda v: norm.cdf(v, **kw), ctx.put(x))
    m = 0.0 if locs[loc] is None else locs[loc]
    s = 1.0 if scales[scale] is None else scales[scale]
    ctx.check(out.shape == (6, 5), f"shape {out.shape}", "other")
    ctx.check_close(out, NDTR((x - m) / s), dtype="float64", atol=1e-12)


@sweep(
    "grad2-{dist}-{dtype}-{mode}-sweep", dist=["norm", "logistic"], dtype=FLOATS_32_64, mode=MODES
)
def cdf_grad2(ctx, dist, dtype, mode):
    from _jaxhelp import swept_grad2

    cdf = ctx.require(f"jax.scipy.stats.{dist}.cdf")

    def d2(x):
        if dist == "norm":
            return -x * np.exp(-(x**2) / 2) / np.sqrt(2 * np.pi)
        s = 1 / (1 + np.exp(-x))
        return s * (1 - s) * (1 - 2 * s)

    swept_grad2(ctx, cdf, d2, dtype, mode, lo=-4.0, hi=4.0)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def cdf_vmap_axes(ctx, axis, mode):
    from _jaxhelp import swept_vmap
    from jax.scipy.stats import norm

    swept_vmap(ctx, norm.cdf, NDTR, "float32", mode, in_axis=axis, lo=-5.0, hi=5.0)
