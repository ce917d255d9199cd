"""torch.ormqr: multiply by Q from geqrf's Householder form (left/right, transposed)."""

import numpy as np

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
