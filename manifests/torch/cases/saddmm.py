"""torch.saddmm (sparse beta*C + alpha*A@B): sparse results against dense references."""

import numpy as np
from _torchhelp import ALL_INTS, COMPLEXES, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


def _sparse(ctx, shape, density):
    dense = ctx.rng.standard_normal(shape) * (ctx.rng.random(shape) < density)
    return dense


@case("float64", dtype="float64")
@case("float32-alpha-beta", dtype="float32", alpha=0.5, beta=2.0)
@case("denser", dtype="float64", density=0.5)
@case("larger", dtype="float64", n=256, density=0.02)
def saddmm_values(ctx, dtype, alpha=1.0, beta=1.0, density=0.1, n=32):

    saddmm = ctx.require("torch.saddmm")
    a = _sparse(ctx, (n, n), density).astype(dtype)
    c = _sparse(ctx, (n, n), density).astype(dtype)
    b = ctx.rng.standard_normal((n, n)).astype(dtype)
    sa, sc = ctx.put(a).to_sparse(), ctx.put(c).to_sparse()
    out = ctx.measure(saddmm, sc, sa, ctx.put(b), beta=beta, alpha=alpha)
    expected = beta * c.astype("float64") + alpha * a.astype("float64") @ b.astype("float64")
    tol = 1e-10 if dtype == "float64" else 1e-4
    ctx.check_close(out.to_dense(), expected, rtol=tol, atol=tol * n)


@sweep("{dtype}-sweep", dtype=["complex128", "float64"])
def sspaddmm_dtypes(ctx, dtype):
    import torch

    # The study's saddmm tests call torch.sspaddmm (sparse input, sparse result).
    m_np = np.zeros((6, 6), dtype=dtype)
    m_np[0, 1], m_np[3, 4] = 1.5, -2
    a_np = np.zeros((6, 5), dtype=dtype)
    a_np[2, 0], a_np[5, 4] = 2, 0.5
    b_np = ctx.rng.standard_normal((5, 6)).astype(dtype)
    if dtype.startswith("complex"):
        b_np = b_np + 1j
    out = ctx.measure(
        torch.sspaddmm, ctx.put(m_np).to_sparse(), ctx.put(a_np).to_sparse(), ctx.put(b_np)
    )
    ctx.check_close(out.to_dense(), m_np + a_np @ b_np, rtol=1e-10, atol=1e-10)


def _sparse_inputs(ctx, dtype, n=6, k=5):
    """(M, A, B): sparse M (n x n) and A (n x k) with a few nonzeros, dense B (k x n); small
    integers, so integer dtypes compute exactly and every float width holds them exactly."""
    m = np.zeros((n, n))
    m[0, 1], m[3, 4], m[5, 0] = 3, -2, 1
    a = np.zeros((n, k))
    a[2, 0], a[5, 4], a[1, 2] = 2, 1, -1
    b = ctx.rng.integers(-4, 5, size=(k, n)).astype("float64")
    if dtype in COMPLEXES:
        b = b + 1j * ctx.rng.integers(-4, 5, size=(k, n))
    return m.astype(dtype), a.astype(dtype), b.astype(dtype)


# Every dtype sspaddmm computes in on the CPU: float32/64, complex64/128 and the integer
# widths (its sparse-dense product "sspmm" has no half-width kernel; see the refusal sweep).
# The result stays sparse; its dense form against beta*M + alpha*A@B, exact for integers.
@sweep("{dtype}-alpha-beta-sweep", dtype=FULL_FLOATS + COMPLEXES + ALL_INTS)
def sspaddmm_all_dtypes(ctx, dtype):
    import torch

    m, a, b = _sparse_inputs(ctx, dtype)
    alpha, beta = (2, 3) if dtype in ALL_INTS else (0.5, 2.0)
    out = ctx.measure(
        torch.sspaddmm,
        ctx.put(m).to_sparse(),
        ctx.put(a).to_sparse(),
        ctx.put(b),
        beta=beta,
        alpha=alpha,
    )
    ctx.check(out.is_sparse, "sspaddmm returned a dense tensor", "type")
    ctx.check(out.dtype == getattr(torch, dtype), f"result dtype {out.dtype}", "type")
    expected = beta * m.astype("complex128") + alpha * (a.astype("complex128") @ b)
    if dtype in ALL_INTS:
        ctx.check_equal(out.to_dense(), expected.real.astype(dtype))
    else:
        ctx.check_close(out.to_dense(), expected, dtype=dtype)


# Argument forms: the method form M.sspaddmm(A, B), out= (a sparse tensor), beta=0 (M
# ignored), an all-zero A (no nonzeros: the result is beta*M), and a coalesced M with
# duplicate entries (summed before the add).
@sweep("{form}-form-sweep", form=["method", "out", "beta-zero", "empty-a", "duplicates"])
def sspaddmm_forms(ctx, form):
    import torch

    m, a, b = _sparse_inputs(ctx, "float64")
    if form == "empty-a":
        a = np.zeros_like(a)
    sm, sa, db = ctx.put(m).to_sparse(), ctx.put(a).to_sparse(), ctx.put(b)
    if form == "duplicates":  # (0, 1) given twice, 1.5 + 1.5 = m[0, 1] = 3
        idx = ctx.put(np.array([[0, 0, 3, 5], [1, 1, 4, 0]], dtype="int64"))
        vals = ctx.put(np.array([1.5, 1.5, -2.0, 1.0]))
        sm = torch.sparse_coo_tensor(idx, vals, (6, 6))
    beta = 0.0 if form == "beta-zero" else 1.0
    if form == "method":
        out = ctx.measure(sm.sspaddmm, sa, db)
    elif form == "out":
        out = torch.zeros(6, 6, dtype=torch.float64, device=ctx.device).to_sparse()
        ctx.measure(torch.sspaddmm, sm, sa, db, out=out)
    else:
        out = ctx.measure(torch.sspaddmm, sm, sa, db, beta=beta)
    ctx.check_close(out.to_dense(), beta * m + a @ b, dtype="float64")


# By design sspaddmm's CPU kernel has no float16/bfloat16 version ("sspmm" not implemented).
@sweep("{dtype}-refused-sweep", dtype=HALF_FLOATS)
def sspaddmm_half_refused(ctx, dtype):
    import torch

    m = ctx.put(np.eye(3, dtype="float32"), dtype=dtype).to_sparse()
    dense = ctx.put(np.ones((3, 3), dtype="float32"), dtype=dtype)

    def attempt():
        try:
            torch.sspaddmm(m, m, dense)
        except (RuntimeError, NotImplementedError):
            return True
        return False

    ctx.check(ctx.measure(attempt), f"sspaddmm accepted {dtype}", category="type")


# The study's kinds of paths (issue #33): the refusal of a mat2 whose rows do not match
# (class and message), an uncoalesced sparse mat1 whose duplicate indices add (their values
# sum before the product), and the full grid of beta x alpha.
@case("raises-shape")
def sspaddmm_raises(ctx):
    import torch
    from _torchhelp import refusal

    if ctx.flavor not in ("cpu", "cuda"):
        ctx.skip(f"sparse COO tensors are CPU/CUDA only (this is {ctx.flavor})")
    m = ctx.put(np.eye(3)).to_sparse()
    refusal(
        ctx,
        lambda: torch.sspaddmm(m, m, ctx.put(np.ones((4, 3)))),
        RuntimeError,
        "Expected dim 0 size 3, got 4",
    )


@case("duplicate-uncoalesced-mat1")
def sspaddmm_duplicates(ctx):
    import torch

    if ctx.flavor not in ("cpu", "cuda"):
        ctx.skip(f"sparse COO tensors are CPU/CUDA only (this is {ctx.flavor})")
    m, _, b = _sparse_inputs(ctx, "float64")
    # (2, 0) given three times and (5, 4) twice: A is their sum, uncoalesced.
    idx = ctx.put(np.array([[2, 2, 2, 5, 5, 1], [0, 0, 0, 4, 4, 2]], dtype="int64"))
    vals = np.array([0.5, 1.0, 0.5, 0.25, 0.75, -1.0])
    a = torch.sparse_coo_tensor(idx, ctx.put(vals), (6, 5))
    ctx.check(not a.is_coalesced(), "the input was coalesced already", "other")
    dense_a = np.zeros((6, 5))
    np.add.at(dense_a, (np.array([2, 2, 2, 5, 5, 1]), np.array([0, 0, 0, 4, 4, 2])), vals)
    out = ctx.measure(torch.sspaddmm, ctx.put(m).to_sparse(), a, ctx.put(b))
    ctx.check_close(out.to_dense(), m + dense_a @ b, dtype="float64")


@sweep("flags-beta{beta}-alpha{alpha}", beta=["0", "1", "2.5"], alpha=["0", "1", "-0.5"])
def sspaddmm_grid(ctx, beta, alpha):
    import torch

    if ctx.flavor not in ("cpu", "cuda"):
        ctx.skip(f"sparse COO tensors are CPU/CUDA only (this is {ctx.flavor})")
    m, a, b = _sparse_inputs(ctx, "float64")
    bt, al = float(beta), float(alpha)
    out = ctx.measure(
        torch.sspaddmm,
        ctx.put(m).to_sparse(),
        ctx.put(a).to_sparse(),
        ctx.put(b),
        beta=bt,
        alpha=al,
    )
    ctx.check_close(out.to_dense(), bt * m + al * (a @ b), dtype="float64")
