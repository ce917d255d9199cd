"""torch.distributions.RelaxedOneHotCategorical: samples on the simplex, temperature limits,
reparameterized gradients, log_prob against the Gumbel-softmax density."""

import math

import numpy as np

from portbench_runner.api import case


@case("samples-on-simplex")
@case("samples-on-simplex-float64", dtype="float64")
def relaxed_simplex(ctx, dtype="float32"):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from torch.distributions import RelaxedOneHotCategorical

    torch.manual_seed(ctx.seed)
    dist = RelaxedOneHotCategorical(
        ctx.put(np.array(0.5, dtype=dtype)), probs=ctx.put(np.array([0.2, 0.3, 0.5], dtype=dtype))
    )
    samples = ctx.to_numpy(ctx.measure(dist.rsample, (10_000,)))
    ctx.check(
        (samples >= 0).all() and np.allclose(samples.sum(axis=1), 1, atol=1e-5),
        "samples left the simplex",
    )


@case("low-temperature-approaches-categorical")
def relaxed_low_temperature(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from torch.distributions import RelaxedOneHotCategorical

    torch.manual_seed(ctx.seed)
    probs = np.array([0.1, 0.6, 0.3])
    dist = RelaxedOneHotCategorical(ctx.put(np.array(0.01)), probs=ctx.put(probs))
    samples = ctx.to_numpy(ctx.measure(dist.sample, (20_000,)))
    freq = np.bincount(samples.argmax(axis=1), minlength=3) / 20_000
    ctx.check(
        np.abs(freq - probs).max() < 0.02 and samples.max(axis=1).mean() > 0.95,
        f"frequencies {freq}",
    )


@case("log-prob-density")
def relaxed_log_prob(ctx):
    ctx.not_comparable("draws from the device's random generator")
    from torch.distributions import RelaxedOneHotCategorical

    t, p = 0.7, np.array([0.25, 0.25, 0.5])
    dist = RelaxedOneHotCategorical(ctx.put(np.array(t)), probs=ctx.put(p))
    y = np.array([0.2, 0.3, 0.5])
    out = ctx.measure(dist.log_prob, ctx.put(y))
    k = 3
    expected = (
        math.lgamma(k)
        + (k - 1) * math.log(t)
        + np.sum(np.log(p) - (t + 1) * np.log(y))
        - k * math.log(np.sum(p * y**-t))
    )
    ctx.check_close(out, expected, dtype="float64", rtol=1e-9, atol=1e-9)
