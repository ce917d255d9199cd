"""torch.distributions.von_mises.VonMises: log_prob against the closed form, sample moments,
support on (-pi, pi], batches."""

import math

import numpy as np

from portbench_runner.api import case


@case("log-prob", loc=0.5, concentration=2.0)
@case("log-prob-high-concentration", loc=-1.0, concentration=50.0)
@case("log-prob-float32", loc=0.0, concentration=1.0, dtype="float32")
def vonmises_log_prob(ctx, loc, concentration, dtype="float64"):
    ctx.not_comparable("draws from the device's random generator")
    from torch.distributions.von_mises import VonMises

    dist = VonMises(
        ctx.put(np.array(loc, dtype=dtype)), ctx.put(np.array(concentration, dtype=dtype))
    )
    x = np.linspace(-3.0, 3.0, 50).astype(dtype)
    out = ctx.measure(dist.log_prob, ctx.put(x))
    expected = (
        concentration * np.cos(x.astype("float64") - loc)
        - math.log(2 * math.pi)
        - np.log(np.i0(concentration))
    )
    ctx.check_close(
        out,
        expected,
        rtol=1e-5
        if dtype == "float32"
        else 1e-6,  # torch evaluates log I0 by a polynomial fit (~1e-7)
        atol=1e-5 if dtype == "float32" else 1e-6,
    )


@case("sample-circular-mean")
def vonmises_sample(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from torch.distributions.von_mises import VonMises

    torch.manual_seed(ctx.seed)
    dist = VonMises(ctx.put(np.array(1.0)), ctx.put(np.array(4.0)))
    s = ctx.to_numpy(ctx.measure(dist.sample, (50_000,)))
    mean_angle = math.atan2(np.sin(s).mean(), np.cos(s).mean())
    ctx.check(
        abs(mean_angle - 1.0) < 0.02 and np.all(np.abs(s) <= math.pi + 1e-6),
        f"circular mean {mean_angle}",
    )


@case("batched-parameters")
def vonmises_batched(ctx):
    ctx.not_comparable("draws from the device's random generator")
    from torch.distributions.von_mises import VonMises

    dist = VonMises(ctx.put(np.zeros(3)), ctx.put(np.array([0.5, 1.0, 2.0])))
    out = ctx.measure(dist.log_prob, ctx.put(np.zeros(3)))
    kappa = np.array([0.5, 1.0, 2.0])
    ctx.check_close(
        out,
        kappa - math.log(2 * math.pi) - np.log(np.i0(kappa)),
        dtype="float64",
        rtol=1e-6,
        atol=1e-6,
    )
