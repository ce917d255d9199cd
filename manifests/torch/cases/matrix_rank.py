"""torch.linalg.matrix_rank: ranks of full, deficient, batched and tolerance-limited matrices."""

import numpy as np

from portbench_runner.api import case, sweep


@case("full-rank", n=20, rank=20)
@case("rank-deficient", n=20, rank=7)
@case("float32", n=30, rank=12, dtype="float32")
@case("large", n=512, rank=100)
def matrix_rank_values(ctx, n, rank, dtype="float64"):
    import torch

    a = (ctx.rng.standard_normal((n, rank)) @ ctx.rng.standard_normal((rank, n))).astype(dtype)
    ctx.check_equal(ctx.measure(torch.linalg.matrix_rank, ctx.put(a)), rank)


@case("batched")
def matrix_rank_batched(ctx):
    import torch

    a = np.stack([np.diag([1.0, 1.0, 0.0]), np.eye(3), np.zeros((3, 3))])
    ctx.check_equal(ctx.measure(torch.linalg.matrix_rank, ctx.put(a)), [2, 3, 0])


@case("absolute-tolerance")
def matrix_rank_tol(ctx):
    import torch

    a = np.diag([1.0, 1e-3, 1e-8])
    kwargs = {"atol": 1e-4} if ctx.version_at_least("1.11") else {"tol": 1e-4}
    ctx.check_equal(ctx.measure(torch.linalg.matrix_rank, ctx.put(a), **kwargs), 2)


@sweep("{dtype}-sweep", dtype=["float32", "complex64", "complex128"])
def matrix_rank_dtypes(ctx, dtype):
    import torch

    left, right = ctx.rng.standard_normal((10, 4)), ctx.rng.standard_normal((4, 10))
    if dtype.startswith("complex"):  # complex factors, so the product keeps rank 4
        left = left + 1j * ctx.rng.standard_normal((10, 4))
        right = right + 1j * ctx.rng.standard_normal((4, 10))
    a = left @ right
    ctx.check_equal(ctx.measure(torch.linalg.matrix_rank, ctx.put(a.astype(dtype))), 4)
