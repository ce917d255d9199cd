"""torch.multinomial: samples by weight, with and without replacement, batches, frequencies."""

import numpy as np
from _torchhelp import FLOAT_DTYPES

from portbench_runner.api import case, sweep


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


# Every float dtype multinomial takes on the CPU (integer weights are refused, a case below),
# batched 2-d weights, with and without replacement: support, distinctness and frequencies.
@sweep("{dtype}-{replacement}-sweep", dtype=FLOAT_DTYPES, replacement=["with", "without"])
def multinomial_dtypes(ctx, dtype, replacement):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    weights = np.array([[0, 1, 2, 0, 5], [3, 0, 0, 1, 4], [1, 1, 1, 1, 0]], dtype="float32")
    w = ctx.put(weights, dtype=dtype)
    torch.manual_seed(ctx.seed)
    n, with_repl = (6000, True) if replacement == "with" else (3, False)
    out = ctx.measure(torch.multinomial, w, n, replacement=with_repl)
    ctx.check(out.dtype == torch.int64 and tuple(out.shape) == (3, n), f"{out.dtype} {out.shape}")
    samples = ctx.to_numpy(out)
    for row in range(3):
        drawn = samples[row]
        ctx.check(np.all(weights[row][drawn] > 0), f"row {row} drew a zero-weight category")
        if with_repl:
            freq = np.bincount(drawn, minlength=5) / n
            want = weights[row] / weights[row].sum()
            # 6000 draws: a standard deviation is at most 0.0065; 0.04 is about 6 of them.
            ctx.check(np.abs(freq - want).max() < 0.04, f"row {row} frequencies {freq}")
        else:
            ctx.check(len(set(drawn.tolist())) == n, f"row {row} repeated a category: {drawn}")


@sweep(
    "{form}-form",
    form=["out", "generator", "compiled", "int-weights-refused", "negative-refused", "too-many"],
)
def multinomial_forms(ctx, form):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    w = ctx.put(np.array([0.0, 2.0, 1.0, 1.0], dtype="float32"))
    torch.manual_seed(ctx.seed)
    if form == "out":
        buf = ctx.put(np.zeros(3, dtype="int64"))
        ctx.measure(torch.multinomial, w, 3, out=buf, warm=False)
        ctx.check_equal(np.sort(ctx.to_numpy(buf)), [1, 2, 3])
    elif form == "generator":
        # The same seeded generator gives the same draws.
        def draw(seed):
            gen = torch.Generator(device=ctx.device)
            gen.manual_seed(seed)
            return ctx.to_numpy(torch.multinomial(w, 50, replacement=True, generator=gen))

        first = ctx.measure(draw, 7)
        ctx.check_equal(first, draw(7))
    elif form == "compiled":
        fn = ctx.in_mode("compiled", lambda t: torch.multinomial(t, 3))
        ctx.check_equal(np.sort(ctx.to_numpy(ctx.measure(fn, w))), [1, 2, 3])
    else:
        bad = {
            "int-weights-refused": (ctx.put(np.array([1, 2, 3], dtype="int64")), 1, True),
            "negative-refused": (ctx.put(np.array([1.0, -1.0], dtype="float32")), 1, True),
            # Four samples without replacement from three categories cannot be drawn.
            "too-many": (ctx.put(np.array([1.0, 0.5, 1.0], dtype="float32")), 4, False),
        }[form]

        def attempt():
            try:
                torch.multinomial(bad[0], bad[1], replacement=bad[2])
            except RuntimeError:
                return True
            return False

        ctx.check(ctx.measure(attempt), f"{form}: multinomial did not refuse", "other")
