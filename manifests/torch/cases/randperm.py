"""torch.randperm: permutations of 0..n-1 (every value once), seeded determinism, dtypes."""

import numpy as np
from _torchhelp import FLOAT_DTYPES, INT_DTYPES

from portbench_runner.api import case, sweep


@case("n10", n=10)
@case("n1000", n=1000)
@case("large", n=1_000_000)
@case("n0", n=0)
@case("int32", n=500, dtype="int32")
def randperm_values(ctx, n, dtype="int64"):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    gen = torch.Generator(device=ctx.device)
    gen.manual_seed(ctx.seed)
    out = ctx.measure(
        torch.randperm, n, generator=gen, dtype=getattr(torch, dtype), device=ctx.device
    )
    ctx.check(str(out.dtype) == f"torch.{dtype}", f"dtype {out.dtype}")
    ctx.check_equal(np.sort(ctx.to_numpy(out)), np.arange(n))


@case("seeded-is-deterministic")
def randperm_seeded(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    def draw(seed):
        gen = torch.Generator(device=ctx.device)
        gen.manual_seed(seed)
        return ctx.to_numpy(torch.randperm(100, generator=gen, device=ctx.device))

    first = ctx.measure(draw, 3)
    ctx.check(
        np.array_equal(first, draw(3)) and not np.array_equal(first, draw(4)),
        "seeding does not determine the permutation",
    )


# Every dtype randperm fills on the CPU; n = 100 fits int8 and is exact in bfloat16.
@sweep("{dtype}-sweep", dtype=FLOAT_DTYPES + INT_DTYPES)
def randperm_dtypes(ctx, dtype):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    gen = torch.Generator(device=ctx.device)
    gen.manual_seed(ctx.seed)
    dt = getattr(torch, dtype)
    out = ctx.measure(torch.randperm, 100, generator=gen, dtype=dt, device=ctx.device)
    ctx.check(out.dtype == dt, f"randperm gave {out.dtype}, not {dtype}")
    values = np.sort(np.asarray(ctx.to_numpy(out)).astype("float64"))
    ctx.check_equal(values, np.arange(100.0))


@sweep("{form}-form", form=["out", "n1", "compiled", "not-identity", "positions-uniform"])
def randperm_forms(ctx, form):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    torch.manual_seed(ctx.seed)
    if form == "out":
        buf = ctx.put(np.zeros(64, dtype="int64"))
        ctx.measure(torch.randperm, 64, out=buf, warm=False)
        ctx.check_equal(np.sort(ctx.to_numpy(buf)), np.arange(64))
    elif form == "n1":
        ctx.check_equal(ctx.measure(torch.randperm, 1, device=ctx.device), [0])
    elif form == "compiled":
        dev = ctx.device
        out = ctx.measure(ctx.in_mode("compiled", lambda: torch.randperm(200, device=dev)))
        ctx.check_equal(np.sort(ctx.to_numpy(out)), np.arange(200))
    elif form == "not-identity":
        # A shuffle of 1000 that fixes every position has probability 1/1000!.
        out = ctx.to_numpy(ctx.measure(torch.randperm, 1000, device=ctx.device))
        ctx.check(not np.array_equal(out, np.arange(1000)), "randperm returned 0..n-1 in order")
    else:
        # Where 0 lands over 4000 shuffles of 8: each position 500 times expected; the
        # bound (420..580) is about 4 standard deviations.
        def many():
            return torch.stack([torch.randperm(8, device=ctx.device) for _ in range(4000)])

        perms = ctx.to_numpy(ctx.measure(many, warm=False))
        counts = np.bincount(np.argmax(perms == 0, axis=1), minlength=8)
        ctx.check(counts.min() > 420 and counts.max() < 580, f"positions of 0: {counts}")


# The study's kinds of paths (issue #33): the refusals with class and message (n < 0; n too
# large for int8; bool, whose class changed in 2.8), and checkpoint/restore of the random
# state: a generator's saved state, or the device's default one, gives the same permutation.
@sweep("raises-{arg}", arg=["negative-n", "int8-overflow", "bool"])
def randperm_refusals(ctx, arg):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from _torchhelp import kernel_error, refusal

    dev = ctx.device
    attempt, error, fragment = {
        "negative-n": (lambda: torch.randperm(-1, device=dev), RuntimeError, "negative dimension"),
        "int8-overflow": (
            lambda: torch.randperm(300, dtype=torch.int8, device=dev),
            RuntimeError,
            "without overflow",
        ),
        "bool": (
            lambda: torch.randperm(3, dtype=torch.bool, device=dev),
            kernel_error(ctx),
            "not implemented for 'Bool'",
        ),
    }[arg]
    refusal(ctx, attempt, error, fragment)


@sweep("checkpoint-{source}", source=["generator-state", "default-generator"])
def randperm_restore(ctx, source):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from _torchhelp import rng_state

    if source == "generator-state":
        gen = torch.Generator(device=ctx.device)
        gen.manual_seed(ctx.seed)
        get_state, set_state = gen.get_state, gen.set_state
        draw = lambda: torch.randperm(64, generator=gen, device=ctx.device)  # noqa: E731
    else:
        get_state, set_state = rng_state(ctx)
        draw = lambda: torch.randperm(64, device=ctx.device)  # noqa: E731
    state = get_state()
    first = ctx.to_numpy(draw())
    second = ctx.to_numpy(draw())

    def replay():
        set_state(state)
        return draw()

    ctx.check(not np.array_equal(first, second), "two draws gave one permutation (p = 1/64!)")
    ctx.check_equal(ctx.measure(replay, warm=False), first)
