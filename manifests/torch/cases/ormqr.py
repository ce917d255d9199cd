"""torch.ormqr: multiply by Q from geqrf's Householder form (left/right, transposed)."""

import numpy as np
from _torchhelp import COMPLEXES, EAGER_COMPILED, FULL_FLOATS

from portbench_runner.api import case, sweep


@case("left", left=True, transpose=False)
@case("left-transposed", left=True, transpose=True)
@case("right", left=False, transpose=False)
@case("float32-left", left=True, transpose=False, dtype="float32")
def ormqr_values(ctx, left, transpose, dtype="float64"):
    import torch

    a = ctx.rng.standard_normal((8, 8)).astype(dtype)
    c = ctx.rng.standard_normal((8, 5) if left else (5, 8)).astype(dtype)
    qr_a, tau = torch.geqrf(ctx.put(a))
    out = ctx.measure(torch.ormqr, qr_a, tau, ctx.put(c), left=left, transpose=transpose)
    q = np.linalg.qr(a.astype("float64"))[0]
    # Q is unique up to column signs: take them from geqrf's R diagonal versus NumPy's.
    r_diag = np.diag(ctx.to_numpy(qr_a).astype("float64"))
    q = q * np.sign(np.diag(np.linalg.qr(a.astype("float64"))[1]) * r_diag)
    q = q.T if transpose else q
    expected = q @ c if left else c @ q
    tol = 1e-10 if dtype == "float64" else 1e-4
    ctx.check_close(out, expected, rtol=tol, atol=tol)


@sweep("{dtype}-sweep", dtype=["complex64", "complex128"])
def ormqr_complex(ctx, dtype):
    import torch

    a_np = (ctx.rng.standard_normal((6, 6)) + 1j * ctx.rng.standard_normal((6, 6))).astype(dtype)
    c_np = (ctx.rng.standard_normal((6, 3)) + 1j * ctx.rng.standard_normal((6, 3))).astype(dtype)
    a, tau = torch.geqrf(ctx.put(a_np))
    out = ctx.measure(torch.ormqr, a, tau, ctx.put(c_np))
    # Q from the same reflectors (householder_product), so LAPACK's sign choices cancel.
    q_t = ctx.to_numpy(torch.linalg.householder_product(a, tau)).astype("complex128")
    tol = 1e-3 if dtype == "complex64" else 1e-9
    ctx.check_close(out, q_t @ c_np.astype("complex128"), rtol=tol, atol=tol)


def _draw(ctx, dtype, shape):
    x = ctx.rng.standard_normal(shape)
    if dtype in COMPLEXES:
        x = x + 1j * ctx.rng.standard_normal(shape)
    return x.astype(dtype)


def _q(ctx, reflectors, tau):
    """Q (m x m, the full orthogonal/unitary factor) from the same reflectors, as complex128:
    householder_product of the reflectors padded to m columns (extra tau are zero)."""
    import torch

    m, k = reflectors.shape[-2], reflectors.shape[-1]
    if k < m:
        pad = torch.zeros(*reflectors.shape[:-1], m - k, dtype=reflectors.dtype)
        reflectors = torch.cat([reflectors, pad.to(reflectors.device)], dim=-1)
    q = torch.linalg.householder_product(reflectors, tau)
    return ctx.to_numpy(q).astype("complex128")


# Every dtype ormqr takes (float32/64, complex64/128), batched, from a tall (7 x 4) A so
# Q is 7 x 7 built from 4 reflectors; all four side/transpose combinations (transpose is
# the conjugate transpose for complex), eager and under torch.compile.
@sweep(
    "{dtype}-{mode}-{side}-sweep",
    dtype=FULL_FLOATS + COMPLEXES,
    mode=EAGER_COMPILED,
    side=["left", "left-t", "right", "right-t"],
)
def ormqr_dtypes(ctx, dtype, mode, side):
    import torch

    left, transpose = side.startswith("left"), side.endswith("-t")
    reflectors, tau = torch.geqrf(ctx.put(_draw(ctx, dtype, (2, 7, 4))))
    c_np = _draw(ctx, dtype, (2, 7, 3) if left else (2, 3, 7))

    def apply(a, t, c):
        return torch.ormqr(a, t, c, left=left, transpose=transpose)

    out = ctx.measure(ctx.in_mode(mode, apply), reflectors, tau, ctx.put(c_np))
    ctx.check(out.dtype == getattr(torch, dtype), f"result dtype {out.dtype}", "type")
    q = _q(ctx, reflectors, tau)
    q = np.conj(np.swapaxes(q, -1, -2)) if transpose else q
    c = c_np.astype("complex128")
    ctx.check_close(out, q @ c if left else c @ q, dtype=dtype, kind="linalg")


# Properties: Q^H (Q C) = C (the round trip through transpose=True), and Q is orthogonal
# so the norm of every column of C survives.
@case("round-trip-and-norms")
def ormqr_round_trip(ctx):
    import torch

    reflectors, tau = torch.geqrf(ctx.put(_draw(ctx, "float64", (6, 6))))
    c_np = _draw(ctx, "float64", (6, 4))
    qc = ctx.measure(torch.ormqr, reflectors, tau, ctx.put(c_np))
    back = torch.ormqr(reflectors, tau, qc, transpose=True)
    ctx.check_close(back, c_np, dtype="float64", kind="linalg")
    norms = np.linalg.norm(ctx.to_numpy(qc), axis=0)
    ctx.check_close(norms, np.linalg.norm(c_np, axis=0), dtype="float64", kind="linalg")


# Argument forms: a non-contiguous C (a transposed view), a stride-0 (expanded) batch of
# reflectors against a batched C, an empty C (zero columns), and out=.
@sweep("{form}-form-sweep", form=["non-contiguous-c", "broadcast-batch", "empty-c", "out"])
def ormqr_forms(ctx, form):
    import torch

    reflectors, tau = torch.geqrf(ctx.put(_draw(ctx, "float64", (5, 5))))
    q = _q(ctx, reflectors, tau).real
    shape = {"broadcast-batch": (3, 5, 2), "empty-c": (5, 0)}.get(form, (5, 2))
    c_np = _draw(ctx, "float64", shape)
    c = ctx.put(c_np)
    if form == "non-contiguous-c":
        c = ctx.put(np.ascontiguousarray(c_np.T)).t()
        ctx.check(not c.is_contiguous(), "C view is contiguous", "type")
    if form == "broadcast-batch":
        reflectors, tau = reflectors.expand(3, 5, 5), tau.expand(3, 5)
    if form == "out":
        out = torch.empty(5, 2, dtype=torch.float64, device=ctx.device)
        ctx.measure(torch.ormqr, reflectors, tau, c, out=out)
    else:
        out = ctx.measure(torch.ormqr, reflectors, tau, c)
    ctx.check_close(out, q @ c_np, dtype="float64", kind="linalg")


# Gradients through ormqr (torch >= 2.0 has its derivative) with respect to the
# reflectors, tau and C: gradcheck in float64 and complex128.
@sweep("gradcheck-{dtype}-sweep", dtype=["float64", "complex128"])
def ormqr_gradcheck(ctx, dtype):
    import torch

    if not ctx.version_at_least("2.0"):
        ctx.skip(f"torch {ctx.version} has no derivative for ormqr")
    reflectors, tau = torch.geqrf(ctx.put(_draw(ctx, dtype, (4, 4))))
    inputs = (
        reflectors.detach().requires_grad_(),
        tau.detach().requires_grad_(),
        ctx.put(_draw(ctx, dtype, (4, 2)), requires_grad=True),
    )
    ok = ctx.measure(torch.autograd.gradcheck, torch.ormqr, inputs, warm=False)
    ctx.check(bool(ok), "autograd disagrees with finite differences")


# By design LAPACK's ormqr has no half-width or integer versions on the CPU.
@sweep("{dtype}-refused-sweep", dtype=["float16", "bfloat16", "int64"])
def ormqr_refused(ctx, dtype):
    import torch

    a = ctx.put(np.eye(3, dtype="float32"), dtype=dtype)
    tau = ctx.put(np.zeros(3, dtype="float32"), dtype=dtype)

    def attempt():
        try:
            torch.ormqr(a, tau, a)
        except (RuntimeError, NotImplementedError):
            return True
        return False

    ctx.check(ctx.measure(attempt), f"ormqr accepted {dtype}", category="type")


# The study's kinds of paths (issue #33): the refusals with class and message (C of another
# height; C of another dtype), vmap over a batch, and second derivatives (torch >= 2.0).
@sweep("raises-{arg}", arg=["other-height", "dtype-mismatch"])
def ormqr_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    reflectors, tau = torch.geqrf(ctx.put(_draw(ctx, "float64", (4, 4))))
    if arg == "other-height":
        c = ctx.put(np.zeros((5, 2)))
        fragment = "other.shape[-2] must be equal to input.shape[-2]"
    else:
        c = ctx.put(np.zeros((4, 2), dtype="float32"))
        fragment = "Expected input and other to have the same dtype"
    refusal(ctx, lambda: torch.ormqr(reflectors, tau, c), RuntimeError, fragment)


@case("vmap-batch")
def ormqr_vmap(ctx):
    import torch
    from _torchhelp import vmap

    reflectors, tau = torch.geqrf(ctx.put(_draw(ctx, "float64", (3, 5, 5))))
    c_np = _draw(ctx, "float64", (3, 5, 2))
    out = ctx.measure(vmap(ctx)(torch.ormqr), reflectors, tau, ctx.put(c_np))
    q = _q(ctx, reflectors, tau).real
    ctx.check_close(out, q @ c_np, dtype="float64", kind="linalg")


@case("grad2-gradgradcheck")
def ormqr_gradgrad(ctx):
    import torch

    if not ctx.version_at_least("2.0"):
        ctx.skip(f"torch {ctx.version} has no derivative for ormqr")
    reflectors, tau = torch.geqrf(ctx.put(_draw(ctx, "float64", (3, 3))))
    inputs = (
        reflectors.detach().requires_grad_(),
        tau.detach().requires_grad_(),
        ctx.put(_draw(ctx, "float64", (3, 2)), requires_grad=True),
    )
    ok = ctx.measure(torch.autograd.gradgradcheck, torch.ormqr, inputs, warm=False)
    ctx.check(bool(ok), "double backward disagrees with finite differences of the gradient")
