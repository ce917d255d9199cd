"""torch.logdet (the study's det/logdet/slogdet test): log-determinants, signs, batches."""

import numpy as np
from _torchhelp import COMPLEXES, EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


def _spd(ctx, n, batch=()):
    m = ctx.rng.standard_normal((*batch, n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


@case("float32-spd", dtype="float32", n=16)
@case("float64-spd", dtype="float64", n=64)
@case("batched", dtype="float64", n=8, batch=(5,))
@case("large", dtype="float32", n=512)
def logdet_values(ctx, dtype, n, batch=()):
    import torch

    a = _spd(ctx, n, batch).astype(dtype)
    out = ctx.measure(torch.logdet, ctx.put(a))
    ctx.check_close(
        out,
        np.linalg.slogdet(a.astype("float64"))[1],
        rtol=1e-4 if dtype == "float32" else 1e-10,
        atol=1e-3,
    )


@case("negative-determinant-is-nan")
def logdet_negative(ctx):
    import torch

    out = ctx.to_numpy(ctx.measure(torch.logdet, ctx.put(np.diag([-1.0, 2.0]))))
    ctx.check(np.isnan(out), f"logdet of a negative determinant gave {out}")


@case("slogdet-sign-and-value")
def logdet_slogdet(ctx):
    import torch

    a = np.array([[0.0, 2.0], [3.0, 0.0]])
    sign, value = ctx.measure(torch.slogdet, ctx.put(a))
    ctx.check_close(sign, -1.0, dtype="float64")
    ctx.check_close(value, np.log(6.0), dtype="float64")


def _well_conditioned(ctx, dtype, n=6, batch=()):
    """A + n I with a random A: complex where the dtype is, determinant away from zero."""
    a = ctx.rng.standard_normal((*batch, n, n))
    if dtype in COMPLEXES:
        a = a + 1j * ctx.rng.standard_normal((*batch, n, n))
    return (a + 2 * n * np.eye(n)).astype(dtype)


def _logdet_ref(a):
    """log det A; for complex A the principal log (log|det| + i arg det), nan for det < 0."""
    det = np.linalg.det(a.astype("complex128"))
    if np.iscomplexobj(a):
        return np.log(det)
    return np.where(det.real > 0, np.log(np.abs(det)), np.nan)


# Every dtype logdet takes on the CPU (float32/64, complex64/128), batched, in each mode.
@sweep("{dtype}-{mode}-sweep", dtype=FULL_FLOATS + COMPLEXES, mode=EAGER_COMPILED)
def logdet_dtypes(ctx, dtype, mode):
    import torch

    a = _well_conditioned(ctx, dtype, batch=(3,))
    out = ctx.measure(ctx.in_mode(mode, torch.logdet), ctx.put(a))
    ctx.check(str(out.dtype).endswith(dtype), f"dtype {out.dtype}, not {dtype}")
    ctx.check_close(out, _logdet_ref(a), dtype=dtype, kind="linalg")


# Documented: linalg refuses the half widths ("Low precision dtypes not supported").
@sweep("{dtype}-refused-sweep", dtype=HALF_FLOATS)
def logdet_half_refused(ctx, dtype):
    import torch

    a = ctx.put(np.eye(3, dtype="float32"), dtype=dtype)

    def attempt():
        try:
            torch.logdet(a)
        except RuntimeError:
            return True
        return False

    ctx.check(ctx.measure(attempt), f"logdet accepted {dtype}", category="type")


# d logdet(A)/dA = inverse(A)^T (conjugated for complex: torch returns the conjugate Wirtinger
# gradient); float64 and complex128 through gradcheck as well.
@sweep("grad-{dtype}-sweep", dtype=FULL_FLOATS + COMPLEXES)
def logdet_grad_dtypes(ctx, dtype):
    import torch

    a_np = _well_conditioned(ctx, dtype)
    a = ctx.put(a_np, requires_grad=True)
    if dtype in ("float64", "complex128"):
        ctx.check(
            ctx.measure(torch.autograd.gradcheck, torch.logdet, (a,), warm=False), "gradcheck"
        )
        return

    def backward():
        a.grad = None
        out = torch.logdet(a)
        (out.real if out.is_complex() else out).backward()
        return a.grad

    expected = np.linalg.inv(a_np.astype("complex128")).T
    expected = expected.conj() if dtype in COMPLEXES else expected.real
    ctx.check_close(ctx.measure(backward), expected, dtype=dtype, kind="linalg")


@sweep(
    "{form}-sweep",
    form=[
        "singular-is-minus-inf",
        "empty-is-zero",
        "non-contiguous",
        "batched-broadcast",
        "identity-is-zero",
    ],
)
def logdet_forms(ctx, form):
    import torch

    if form == "singular-is-minus-inf":
        out = ctx.to_numpy(ctx.measure(torch.logdet, ctx.put(np.diag([1.0, 0.0, 2.0]))))
        ctx.check(np.isneginf(out), f"logdet of a singular matrix gave {out}")
    elif form == "empty-is-zero":
        # det of a 0x0 matrix is 1 (the empty product), so its log is 0.
        out = ctx.measure(torch.logdet, ctx.put(np.zeros((0, 0))))
        ctx.check_close(out, 0.0, dtype="float64")
    elif form == "non-contiguous":
        a_np = _well_conditioned(ctx, "float64", n=5)
        at = ctx.put(np.ascontiguousarray(a_np.T)).t()
        ctx.check(not at.is_contiguous(), "the input is a non-contiguous view", "other")
        ctx.check_close(
            ctx.measure(torch.logdet, at), _logdet_ref(a_np), dtype="float64", kind="linalg"
        )
    elif form == "batched-broadcast":
        a_np = _well_conditioned(ctx, "float64", n=3, batch=(2, 4))
        out = ctx.measure(torch.logdet, ctx.put(a_np))
        ctx.check_close(out, _logdet_ref(a_np), dtype="float64", kind="linalg")
    else:
        out = ctx.measure(torch.logdet, ctx.put(np.eye(7)))
        ctx.check_close(out, 0.0, dtype="float64")


# The study's kinds of paths (issue #33): the refusals (a non-square matrix; fewer than two
# dims) with class and message, vmap over a batch, and second derivatives.
@sweep("raises-{arg}", arg=["non-square", "1d"])
def logdet_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    shape, fragment = {
        "non-square": ((4, 3), "square matrices"),
        "1d": ((3,), "at least 2 dimensions"),
    }[arg]
    a = ctx.put(np.zeros(shape))
    refusal(ctx, lambda: torch.logdet(a), RuntimeError, fragment)


@sweep("vmap-{dtype}", dtype=["float64", "complex128"])
def logdet_vmap(ctx, dtype):
    import torch
    from _torchhelp import vmap

    a = _well_conditioned(ctx, dtype, n=4, batch=(5,))
    out = ctx.measure(vmap(ctx)(torch.logdet), ctx.put(a))
    ctx.check_close(out, _logdet_ref(a), dtype=dtype, kind="linalg")


@case("grad2-gradgradcheck")
def logdet_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    gradgradcheck(ctx, torch.logdet, _well_conditioned(ctx, "float64", n=3))
