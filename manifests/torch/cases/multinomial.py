"""torch.multinomial: samples by weight, with and without replacement, batches, frequencies."""

import numpy as np

from portbench_runner.api import case


@case("with-replacement-frequencies")
def multinomial_frequencies(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    weights = np.array([1.0, 2.0, 7.0], dtype="float32")
    torch.manual_seed(ctx.seed)
    out = ctx.measure(torch.multinomial, ctx.put(weights), 200_000, replacement=True)
    freq = np.bincount(ctx.to_numpy(out), minlength=3) / 200_000
    ctx.check(np.abs(freq - weights / weights.sum()).max() < 0.01, f"frequencies {freq}")


@case("without-replacement-distinct")
def multinomial_distinct(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    torch.manual_seed(ctx.seed)
    out = ctx.to_numpy(ctx.measure(torch.multinomial, ctx.put(np.ones(50, dtype="float32")), 50))
    ctx.check_equal(np.sort(out), np.arange(50))


@case("zero-weight-never-drawn")
def multinomial_zero(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    torch.manual_seed(ctx.seed)
    out = ctx.to_numpy(
        ctx.measure(
            torch.multinomial,
            ctx.put(np.array([0.0, 1.0, 0.0, 1.0], dtype="float32")),
            1000,
            replacement=True,
        )
    )
    ctx.check(set(np.unique(out)) <= {1, 3}, f"drew {set(np.unique(out))}")


@case("batched-float64")
def multinomial_batched(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    torch.manual_seed(ctx.seed)
    weights = np.eye(4, dtype="float64") + 1e-12
    out = ctx.to_numpy(ctx.measure(torch.multinomial, ctx.put(weights), 1))
    ctx.check_equal(out[:, 0], np.arange(4))
