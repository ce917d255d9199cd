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


# The study's kinds of paths (issue #33): each documented refusal with class and message;
# checkpoint/restore of the random state (a generator's get_state/set_state, and the
# device's default generator) that draws the same samples again; and the grid of
# replacement x batched weights.
@sweep(
    "raises-{arg}",
    arg=["int-weights", "negative", "too-many", "zero-samples", "3d-weights", "all-zero"],
)
def multinomial_refusals(ctx, arg):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from _torchhelp import refusal

    weights, n, replacement, fragment = {
        "int-weights": ([1, 2, 3], 1, True, "only supports floating-point dtypes"),
        "negative": ([1.0, -1.0], 1, True, "< 0"),  # the sentence changed after 1.12
        "too-many": ([1.0, 0.5, 1.0], 4, False, "samples without replacement"),
        "zero-samples": ([1.0, 0.5], 0, True, "n_sample <= 0"),
        "3d-weights": (np.ones((2, 2, 2)).tolist(), 1, True, "prob_dist must be 1 or 2 dim"),
        "all-zero": ([0.0, 0.0, 0.0], 1, True, "sum of probabilities <= 0"),
    }[arg]
    w = ctx.put(np.asarray(weights, dtype="int64" if arg == "int-weights" else "float32"))
    refusal(ctx, lambda: torch.multinomial(w, n, replacement=replacement), RuntimeError, fragment)


@sweep("checkpoint-{source}", source=["generator-state", "default-generator"])
def multinomial_restore(ctx, source):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from _torchhelp import rng_state

    w = ctx.put(np.array([0.5, 1.0, 2.0, 0.0, 3.0], dtype="float32"))
    if source == "generator-state":
        gen = torch.Generator(device=ctx.device)
        gen.manual_seed(ctx.seed)
        get_state, set_state = gen.get_state, gen.set_state
        draw = lambda: torch.multinomial(w, 200, replacement=True, generator=gen)  # noqa: E731
    else:
        get_state, set_state = rng_state(ctx)
        draw = lambda: torch.multinomial(w, 200, replacement=True)  # noqa: E731
    state = get_state()
    first = ctx.to_numpy(draw())
    second = ctx.to_numpy(draw())

    def replay():
        set_state(state)
        return draw()

    ctx.check(not np.array_equal(first, second), "two draws of 200 were the same")
    ctx.check_equal(ctx.measure(replay, warm=False), first)


@sweep("flags-{replacement}-{shape}", replacement=["with", "without"], shape=["1d", "2d"])
def multinomial_grid(ctx, replacement, shape):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    torch.manual_seed(ctx.seed)
    weights = np.array([[2.0, 0.0, 1.0, 1.0, 4.0], [1.0, 1.0, 0.0, 3.0, 0.0]])
    if shape == "1d":
        weights = weights[0]
    with_repl = replacement == "with"
    n = 3 if not with_repl else 4000
    out = ctx.measure(torch.multinomial, ctx.put(weights), n, replacement=with_repl)
    got = np.atleast_2d(ctx.to_numpy(out))
    rows = np.atleast_2d(weights)
    ctx.check(got.shape == (rows.shape[0], n), f"shape {got.shape}")
    for row, drawn in zip(rows, got):
        ctx.check(bool(np.all(row[drawn] > 0)), "a zero-weight category was drawn")
        if with_repl:
            freq = np.bincount(drawn, minlength=5) / n
            ctx.check(np.abs(freq - row / row.sum()).max() < 0.04, f"frequencies {freq}")
        else:
            ctx.check(len(set(drawn.tolist())) == n, f"a category repeated: {drawn}")
