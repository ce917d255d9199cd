"""torch.distributions.von_mises.VonMises: log_prob against the closed form, sample moments,
support on (-pi, pi], batches."""

import math

import numpy as np
from _torchhelp import FLOAT_DTYPES, MODES, gradcheck

from portbench_runner.api import case, sweep


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


def _log_density(x, loc, kappa):
    return kappa * np.cos(x - loc) - math.log(2 * math.pi) - np.log(np.i0(kappa))


# log_prob in every float dtype, eager and compiled, at points exact in every width.
@sweep("log-prob-{dtype}-{mode}-sweep", dtype=FLOAT_DTYPES, mode=MODES)
def vonmises_log_prob_dtypes(ctx, dtype, mode):
    from torch.distributions.von_mises import VonMises

    loc, kappa = 0.5, 2.0
    x = np.linspace(-3.0, 3.0, 49)  # steps of 0.125: exact in bfloat16 and float16
    loc_t, kappa_t = ctx.put(np.array(loc), dtype=dtype), ctx.put(np.array(kappa), dtype=dtype)
    # Built inside the measured function, so a dtype the constructor refuses fails the call.
    fn = ctx.in_mode(mode, lambda v: VonMises(loc_t, kappa_t).log_prob(v))
    out = ctx.measure(fn, ctx.put(x, dtype=dtype))
    ctx.check(str(out.dtype) == f"torch.{dtype}", f"log_prob gave {out.dtype}")
    # torch evaluates log I0 by a polynomial fit (~1e-7 relative) whatever the dtype.
    r = {"float16": 1e-2, "bfloat16": 5e-2, "float32": 1e-5}.get(dtype, 1e-6)
    ctx.check_close(out, _log_density(x, loc, kappa), rtol=r, atol=r)


# Samples in every float dtype: dtype, shape, support and the circular mean.
@sweep("sample-{dtype}-sweep", dtype=FLOAT_DTYPES)
def vonmises_sample_dtypes(ctx, dtype):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from torch.distributions.von_mises import VonMises

    torch.manual_seed(ctx.seed)
    loc_t, kappa_t = ctx.put(np.array(-2.0), dtype=dtype), ctx.put(np.array(3.0), dtype=dtype)
    s = ctx.measure(lambda: VonMises(loc_t, kappa_t).sample((4000,)))
    ctx.check(
        str(s.dtype) == f"torch.{dtype}" and tuple(s.shape) == (4000,), f"{s.dtype} {s.shape}"
    )
    h = np.asarray(ctx.to_numpy(s), dtype="float64")
    ctx.check(np.all(np.abs(h) <= math.pi + 1e-2), "a sample left [-pi, pi]")
    mean_angle = math.atan2(np.sin(h).mean(), np.cos(h).mean())
    # kappa = 3: the circular standard error of 4000 draws is about 0.01; 0.06 is generous.
    ctx.check(abs(mean_angle + 2.0) < 0.06, f"circular mean {mean_angle}, expected -2")


@case("log-prob-gradcheck-float64")
def vonmises_gradcheck(ctx):
    from torch.distributions.von_mises import VonMises

    # Gradients of log_prob in loc, log-concentration and the value (d/dx = -k sin(x - loc)).
    def fn(loc, log_kappa, x):
        return VonMises(loc, log_kappa.exp()).log_prob(x)

    gradcheck(ctx, fn, np.array(0.3), np.array(0.4), ctx.rng.uniform(-3, 3, 5))


@sweep(
    "{form}-form",
    form=["mean-and-variance", "periodic", "batched-sample-shape", "high-concentration-spread"],
)
def vonmises_forms(ctx, form):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from torch.distributions.von_mises import VonMises

    torch.manual_seed(ctx.seed)
    if form == "mean-and-variance":
        kappa = np.array([0.5, 2.0, 10.0])
        dist = VonMises(ctx.put(np.array([0.1, -1.0, 2.5])), ctx.put(kappa))
        mean, var = ctx.measure(lambda: (dist.mean, dist.variance))
        # Circular variance 1 - I1(k) / I0(k); I1 by its power series.
        i1 = sum(
            (kappa / 2) ** (2 * m + 1) / (math.factorial(m) * math.factorial(m + 1))
            for m in range(40)
        )
        ctx.check_close(mean, [0.1, -1.0, 2.5], dtype="float64")
        ctx.check_close(var, 1 - i1 / np.i0(kappa), rtol=1e-6, atol=1e-6)
    elif form == "periodic":
        dist = VonMises(ctx.put(np.array(0.7)), ctx.put(np.array(1.5)))
        x = np.linspace(-3, 3, 13)
        out = ctx.measure(dist.log_prob, ctx.put(x + 2 * math.pi))
        ctx.check_close(out, ctx.to_numpy(dist.log_prob(ctx.put(x))), rtol=1e-9, atol=1e-9)
    elif form == "batched-sample-shape":
        dist = VonMises(ctx.put(np.zeros((2, 3))), ctx.put(np.ones((2, 3))))
        out = ctx.measure(dist.sample, (5,))
        ctx.check(tuple(out.shape) == (5, 2, 3), f"sample shape {tuple(out.shape)}")
    else:
        # For large kappa the law is nearly normal with standard deviation 1 / sqrt(kappa).
        dist = VonMises(ctx.put(np.array(0.0)), ctx.put(np.array(400.0)))
        s = ctx.to_numpy(ctx.measure(dist.sample, (20_000,)))
        ctx.check(abs(s.std() * 20 - 1) < 0.05, f"spread {s.std()}, expected about 0.05")


# The study's kinds of paths (issue #33): the refusals of invalid parameters under
# validate_args (class and message), the default generator's saved state restored draws the
# same samples, vmap of log_prob, and second derivatives of log_prob.
@sweep("raises-{arg}", arg=["negative-concentration", "nan-loc"])
def vonmises_refusals(ctx, arg):
    ctx.not_comparable("draws from the device's random generator")
    from _torchhelp import refusal
    from torch.distributions.von_mises import VonMises

    loc, kappa, fragment = {
        "negative-concentration": (0.0, -1.0, "Expected parameter concentration"),
        "nan-loc": (float("nan"), 1.0, "Expected parameter loc"),
    }[arg]
    refusal(
        ctx,
        lambda: VonMises(ctx.put(np.array(loc)), ctx.put(np.array(kappa)), validate_args=True),
        ValueError,
        fragment,
    )


@case("checkpoint-rng-state")
def vonmises_restore(ctx):
    ctx.not_comparable("draws from the device's random generator")
    from _torchhelp import rng_state
    from torch.distributions.von_mises import VonMises

    get_state, set_state = rng_state(ctx)
    dist = VonMises(ctx.put(np.array(0.4)), ctx.put(np.array(2.0)))
    state = get_state()
    first = ctx.to_numpy(dist.sample((64,)))

    def replay():
        set_state(state)
        return dist.sample((64,))

    ctx.check_equal(ctx.measure(replay, warm=False), first)


@case("vmap-log-prob")
def vonmises_vmap(ctx):
    from _torchhelp import vmap
    from torch.distributions.von_mises import VonMises

    dist = VonMises(ctx.put(np.array(0.5)), ctx.put(np.array(2.0)), validate_args=False)
    x = ctx.rng.uniform(-3, 3, size=(4, 7))
    out = ctx.measure(vmap(ctx)(dist.log_prob), ctx.put(x))
    ctx.check_close(out, _log_density(x, 0.5, 2.0), rtol=1e-6, atol=1e-6)


@case("grad2-log-prob")
def vonmises_gradgrad(ctx):
    from _torchhelp import gradgradcheck
    from torch.distributions.von_mises import VonMises

    def fn(loc, log_kappa, x):
        return VonMises(loc, log_kappa.exp(), validate_args=False).log_prob(x)

    gradgradcheck(ctx, fn, np.array(0.3), np.array(0.4), ctx.rng.uniform(-3, 3, 4))
