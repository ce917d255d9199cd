"""torch.linalg.matrix_rank: ranks of full, deficient, batched and tolerance-limited matrices."""

import numpy as np
from _torchhelp import COMPLEXES, EAGER_COMPILED, FULL_FLOATS

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


def _low_rank(ctx, dtype, shape, rank):
    """A (..., m, n) product of random rank-`rank` factors (complex where the dtype is)."""
    *batch, m, n = shape
    left = ctx.rng.standard_normal((*batch, m, rank))
    right = ctx.rng.standard_normal((*batch, rank, n))
    if dtype in COMPLEXES:
        left = left + 1j * ctx.rng.standard_normal(left.shape)
        right = right + 1j * ctx.rng.standard_normal(right.shape)
    return (left @ right).astype(dtype)


# Every dtype matrix_rank takes (float32/64, complex64/128), batched and non-square (tall
# and wide), eager and under torch.compile: the rank is an exact int64.
@sweep("{dtype}-{mode}-batched-sweep", dtype=FULL_FLOATS + COMPLEXES, mode=EAGER_COMPILED)
def matrix_rank_modes(ctx, dtype, mode):
    import torch

    tall = _low_rank(ctx, dtype, (3, 9, 5), 3)
    out = ctx.measure(ctx.in_mode(mode, torch.linalg.matrix_rank), ctx.put(tall))
    ctx.check(out.dtype == torch.int64, f"rank dtype {out.dtype}", "type")
    ctx.check_equal(out, [3, 3, 3])
    wide = _low_rank(ctx, dtype, (2, 4, 7), 2)
    ctx.check_equal(ctx.in_mode(mode, torch.linalg.matrix_rank)(ctx.put(wide)), [2, 2])


# hermitian=True: the rank from eigenvalues (|lambda| above the tolerance), so a Hermitian
# matrix with negative eigenvalues keeps them in the count.
@sweep("hermitian-{dtype}-sweep", dtype=FULL_FLOATS + COMPLEXES)
def matrix_rank_hermitian(ctx, dtype):
    import torch

    q = np.linalg.qr(_low_rank(ctx, "complex128" if dtype in COMPLEXES else "float64", (6, 6), 6))[
        0
    ]
    a = (q * np.array([3.0, -2.0, 1.0, -0.5, 0.0, 0.0])) @ q.conj().T
    out = ctx.measure(torch.linalg.matrix_rank, ctx.put(a.astype(dtype)), hermitian=True)
    ctx.check_equal(out, 4)


# The tolerance forms (torch >= 1.11): rtol relative to the largest singular value, atol
# and rtol together (the larger applies), and per-matrix tolerance tensors broadcast over a
# batch. Singular values here are exactly 1, 1e-2, 1e-5.
@sweep("{form}-tolerance-sweep", form=["rtol", "atol-and-rtol", "tensor-batched"])
def matrix_rank_tolerance_forms(ctx, form):
    import torch

    if not ctx.version_at_least("1.11"):
        ctx.skip(f"torch {ctx.version} has only the old tol= argument")
    a = np.diag([1.0, 1e-2, 1e-5])
    if form == "rtol":
        ctx.check_equal(ctx.measure(torch.linalg.matrix_rank, ctx.put(a), rtol=1e-3), 2)
    elif form == "atol-and-rtol":  # max(atol, rtol * 1) = 0.1 drops both small values
        out = ctx.measure(torch.linalg.matrix_rank, ctx.put(a), atol=1e-6, rtol=1e-1)
        ctx.check_equal(out, 1)
    else:
        batch = ctx.put(np.stack([a, a, a]))
        atol = ctx.put(np.array([1e-6, 1e-3, 2.0]))
        ctx.check_equal(ctx.measure(torch.linalg.matrix_rank, batch, atol=atol), [3, 2, 0])


# Empty shapes: a 0x0 matrix and a batch of 3x0 matrices have rank 0; an empty batch gives
# an empty result.
@sweep("empty-{shape}-sweep", shape=["0x0", "3x0-batch", "empty-batch"])
def matrix_rank_empty(ctx, shape):
    import torch

    dims = {"0x0": (0, 0), "3x0-batch": (2, 3, 0), "empty-batch": (0, 4, 4)}[shape]
    out = ctx.measure(torch.linalg.matrix_rank, ctx.put(np.zeros(dims)))
    ctx.check_equal(out, np.zeros(dims[:-2], dtype="int64"))


# A non-contiguous (transposed) view has the rank of its matrix; out= fills an int64 tensor.
@case("transposed-view-and-out")
def matrix_rank_view_out(ctx):
    import torch

    a = ctx.put(_low_rank(ctx, "float64", (2, 8, 5), 3))
    view = a.transpose(-2, -1)
    ctx.check(not view.is_contiguous(), "view is contiguous", "type")
    out = torch.empty(2, dtype=torch.int64, device=ctx.device)
    ctx.measure(torch.linalg.matrix_rank, view, out=out)
    ctx.check_equal(out, [3, 3])


# By design the half widths and integers are refused ("doesn't handle types other than
# float and double").
@sweep("{dtype}-refused-sweep", dtype=["float16", "bfloat16", "int64"])
def matrix_rank_refused(ctx, dtype):
    import torch

    a = ctx.put(np.eye(3, dtype="float32"), dtype=dtype)

    def attempt():
        try:
            torch.linalg.matrix_rank(a)
        except RuntimeError:
            return True
        return False

    ctx.check(ctx.measure(attempt), f"matrix_rank accepted {dtype}", category="type")


# The study's kinds of paths (issue #33): vmap over a batch, and the full grid of
# hermitian x tolerance form on a symmetric matrix with singular values 3, 1e-2 and 1e-5
# (and a negative eigenvalue, which hermitian=True counts by its magnitude).
@sweep("vmap-{dtype}", dtype=["float64", "complex128"])
def matrix_rank_vmap(ctx, dtype):
    import torch
    from _torchhelp import vmap

    a = np.stack([_low_rank(ctx, dtype, (6, 6), r) for r in (1, 3, 6)])
    out = ctx.measure(vmap(ctx)(torch.linalg.matrix_rank), ctx.put(a))
    ctx.check_equal(out, [1, 3, 6])


@sweep(
    "flags-{hermitian}-{tol}",
    hermitian=["general", "hermitian"],
    tol=["default", "atol", "rtol"],
)
def matrix_rank_grid(ctx, hermitian, tol):
    import torch

    if tol != "default" and not ctx.version_at_least("1.11"):
        ctx.skip(f"torch {ctx.version} has only the old tol= argument")
    q = np.linalg.qr(ctx.rng.standard_normal((4, 4)))[0]
    a = (q * np.array([3.0, -1e-2, 1e-5, 0.0])) @ q.T
    kwargs = {"default": {}, "atol": {"atol": 1e-3}, "rtol": {"rtol": 1e-6}}[tol]
    out = ctx.measure(
        torch.linalg.matrix_rank, ctx.put(a), hermitian=hermitian == "hermitian", **kwargs
    )
    # default: eps * 4 * 3 ~ 3e-15 keeps 1e-5; atol 1e-3 drops it; rtol 1e-6 * 3 keeps it.
    ctx.check_equal(out, {"default": 3, "atol": 2, "rtol": 3}[tol])
