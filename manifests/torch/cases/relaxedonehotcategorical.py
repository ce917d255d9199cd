"""torch.distributions.RelaxedOneHotCategorical: samples on the simplex, temperature limits,
reparameterized gradients, log_prob against the Gumbel-softmax density."""

import math

import numpy as np
from _torchhelp import FLOAT_DTYPES, MODES, gradcheck

from portbench_runner.api import case, sweep


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


def _density(t, p, y):
    """log density of the Gumbel-softmax (concrete) distribution at y, in float64."""
    k = len(p)
    return (
        math.lgamma(k)
        + (k - 1) * math.log(t)
        + np.sum(np.log(p) - (t + 1) * np.log(y))
        - k * math.log(np.sum(p * y**-t))
    )


# Reparameterized samples in every float dtype, parameterized by probs or by logits: shape,
# dtype, on the simplex within the dtype's rounding, and a finite log density of each sample.
@sweep("{dtype}-{param}-sweep", dtype=FLOAT_DTYPES, param=["probs", "logits"])
def relaxed_dtypes(ctx, dtype, param):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from torch.distributions import RelaxedOneHotCategorical

    torch.manual_seed(ctx.seed)
    probs = np.array([0.25, 0.25, 0.5])
    value = probs if param == "probs" else np.log(probs)
    temperature, param_t = ctx.put(np.array(0.8), dtype=dtype), ctx.put(value, dtype=dtype)

    def build():
        # validate_args explicitly: torch.compile's first use turns the global default off
        # (torch/_dynamo/eval_frame.py), so the default depends on which cases ran before.
        return RelaxedOneHotCategorical(temperature, validate_args=True, **{param: param_t})

    # Construction is timed with the draw: in a dtype it cannot take, it is what fails.
    samples = ctx.measure(lambda: build().rsample((2000,)))
    dist = build()
    ctx.check(str(samples.dtype) == f"torch.{dtype}", f"rsample gave {samples.dtype}")
    ctx.check(tuple(samples.shape) == (2000, 3), f"rsample shape {tuple(samples.shape)}")
    host = np.asarray(ctx.to_numpy(samples), dtype="float64")
    eps = {"float16": 4e-3, "bfloat16": 2e-2}.get(dtype, 1e-5)
    ctx.check(
        (host >= 0).all() and np.abs(host.sum(axis=1) - 1).max() < eps, "samples left the simplex"
    )
    # The distribution must score its own samples (validate_args checks the simplex).
    log_p = ctx.to_numpy(dist.log_prob(samples[:50]))
    ctx.check(np.isfinite(np.asarray(log_p, dtype="float64")).all(), "non-finite log_prob")


# log_prob at a fixed point (no random draws), every float dtype, eager and compiled.
@sweep("log-prob-{dtype}-{mode}-sweep", dtype=FLOAT_DTYPES, mode=MODES)
def relaxed_log_prob_dtypes(ctx, dtype, mode):
    from torch.distributions import RelaxedOneHotCategorical

    t, p = 0.5, np.array([0.25, 0.25, 0.5])
    y = np.array([0.125, 0.375, 0.5])  # exact in every float width and sums to 1 exactly
    t_t, p_t = ctx.put(np.array(t), dtype=dtype), ctx.put(p, dtype=dtype)
    # Built inside the measured function, so a dtype the constructor refuses fails the call.
    fn = ctx.in_mode(mode, lambda v: RelaxedOneHotCategorical(t_t, probs=p_t).log_prob(v))
    out = ctx.measure(fn, ctx.put(y, dtype=dtype))
    r = {"float16": 1e-2, "bfloat16": 5e-2, "float32": 1e-5}.get(dtype, 1e-10)
    ctx.check_close(out, _density(t, p, y), rtol=r, atol=r)


@case("rsample-gradcheck-float64")
def relaxed_gradcheck(ctx):
    import torch
    from torch.distributions import RelaxedOneHotCategorical

    # Reseeding inside makes the draw a deterministic function of (temperature, logits), so
    # finite differences see the same Gumbel noise the reparameterized gradient uses.
    def fn(log_t, logits):
        torch.manual_seed(ctx.seed)
        return RelaxedOneHotCategorical(log_t.exp(), logits=logits).rsample((4,))

    ctx.not_comparable("draws from the device's random generator")
    gradcheck(ctx, fn, np.array(np.log(0.7)), ctx.rng.standard_normal(3))


@sweep(
    "{form}-form",
    form=["batch-shape", "expand", "off-simplex-refused", "high-temperature-centre"],
)
def relaxed_forms(ctx, form):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from torch.distributions import RelaxedOneHotCategorical

    torch.manual_seed(ctx.seed)
    probs = ctx.put(np.array([[0.1, 0.9, 0.0 + 1e-9], [0.3, 0.3, 0.4]]))
    if form == "batch-shape":
        dist = RelaxedOneHotCategorical(ctx.put(np.array(0.5)), probs=probs)
        out = ctx.measure(dist.rsample, (7,))
        ok = dist.batch_shape == (2,) and dist.event_shape == (3,) and out.shape == (7, 2, 3)
        ctx.check(ok, f"batch {dist.batch_shape} event {dist.event_shape} sample {out.shape}")
    elif form == "expand":
        dist = RelaxedOneHotCategorical(ctx.put(np.array(0.5)), probs=probs[1])
        wide = ctx.measure(dist.expand, (4,), warm=False)
        ctx.check(tuple(wide.sample().shape) == (4, 3), "expand did not add a batch dim")
    elif form == "off-simplex-refused":
        dist = RelaxedOneHotCategorical(ctx.put(np.array(0.5)), probs=probs[1], validate_args=True)
        bad = ctx.put(np.array([0.5, 0.6, 0.1]))

        def attempt():
            try:
                dist.log_prob(bad)
            except ValueError:
                return True
            return False

        ctx.check(ctx.measure(attempt), "log_prob accepted a point off the simplex", "other")
    else:
        # As the temperature grows, samples collapse to the centre (1/3, 1/3, 1/3).
        dist = RelaxedOneHotCategorical(ctx.put(np.array(200.0)), probs=probs[1])
        out = ctx.to_numpy(ctx.measure(dist.sample, (1000,)))
        ctx.check(
            np.abs(out - 1 / 3).max() < 0.05,
            f"max distance from centre {np.abs(out - 1 / 3).max()}",
        )


# The study's kinds of paths (issue #33): the constructor's documented refusals (neither or
# both of probs and logits; probs off the simplex with validate_args), class and message;
# the default generator's saved state restored draws the same samples; vmap of log_prob;
# and second derivatives of log_prob.
@sweep("raises-{arg}", arg=["neither", "both", "probs-off-simplex"])
def relaxed_refusals(ctx, arg):
    ctx.not_comparable("draws from the device's random generator")
    from _torchhelp import refusal
    from torch.distributions import RelaxedOneHotCategorical

    t = ctx.put(np.array(0.5))
    probs, logits = ctx.put(np.full(3, 1 / 3)), ctx.put(np.zeros(3))
    attempt, fragment = {
        "neither": (lambda: RelaxedOneHotCategorical(t), "Either `probs` or `logits` must be"),
        "both": (
            lambda: RelaxedOneHotCategorical(t, probs=probs, logits=logits),
            "Either `probs` or `logits` must be",
        ),
        "probs-off-simplex": (
            lambda: RelaxedOneHotCategorical(
                t, probs=ctx.put(np.array([0.5, -0.1, 0.6])), validate_args=True
            ),
            "Expected parameter probs",
        ),
    }[arg]
    refusal(ctx, attempt, ValueError, fragment)


@case("checkpoint-rng-state")
def relaxed_restore(ctx):
    ctx.not_comparable("draws from the device's random generator")
    from _torchhelp import rng_state
    from torch.distributions import RelaxedOneHotCategorical

    get_state, set_state = rng_state(ctx)
    dist = RelaxedOneHotCategorical(
        ctx.put(np.array(0.6)), probs=ctx.put(np.array([0.2, 0.3, 0.5]))
    )
    state = get_state()
    first = ctx.to_numpy(dist.rsample((50,)))

    def replay():
        set_state(state)
        return dist.rsample((50,))

    ctx.check_equal(ctx.measure(replay, warm=False), first)


@case("vmap-log-prob")
def relaxed_vmap(ctx):
    from _torchhelp import vmap
    from torch.distributions import RelaxedOneHotCategorical

    t, p = 0.5, np.array([0.25, 0.25, 0.5])
    dist = RelaxedOneHotCategorical(ctx.put(np.array(t)), probs=ctx.put(p), validate_args=False)
    y = ctx.rng.dirichlet(np.ones(3), size=6)
    out = ctx.measure(vmap(ctx)(dist.log_prob), ctx.put(y))
    ctx.check_close(out, [_density(t, p, row) for row in y], rtol=1e-9, atol=1e-9)


@case("grad2-log-prob")
def relaxed_gradgrad(ctx):
    from _torchhelp import gradgradcheck
    from torch.distributions import RelaxedOneHotCategorical

    def fn(log_t, logits, value):
        dist = RelaxedOneHotCategorical(log_t.exp(), logits=logits, validate_args=False)
        return dist.log_prob(value)

    gradgradcheck(
        ctx, fn, np.array(np.log(0.7)), ctx.rng.standard_normal(3), np.array([0.2, 0.3, 0.5])
    )
