"""torch.randperm: permutations of 0..n-1 (every value once), seeded determinism, dtypes."""

import numpy as np

from portbench_runner.api import case


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
