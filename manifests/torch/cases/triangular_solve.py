"""torch.triangular_solve: solve A X = B for triangular A (upper/lower, transposed, batched)."""

import numpy as np
from _torchhelp import COMPLEXES, EAGER_COMPILED, FULL_FLOATS

from portbench_runner.api import case, sweep


def _triangular(ctx, n, upper, batch=()):
    m = ctx.rng.standard_normal((*batch, n, n)) + 3 * n * np.eye(n)
    return np.triu(m) if upper else np.tril(m)


@case("upper", upper=True)
@case("lower", upper=False)
@case("upper-transposed", upper=True, transpose=True)
@case("float32-lower", upper=False, dtype="float32")
@case("batched", upper=True, batch=(4,))
@case("large", upper=False, n=512)
def triangular_solve_values(ctx, upper, transpose=False, dtype="float64", batch=(), n=16):
    import torch

    a = _triangular(ctx, n, upper, batch).astype(dtype)
    b = ctx.rng.standard_normal((*batch, n, 3)).astype(dtype)
    x, _ = ctx.measure(
        torch.triangular_solve, ctx.put(b), ctx.put(a), upper=upper, transpose=transpose
    )
    a64 = np.swapaxes(a, -1, -2).astype("float64") if transpose else a.astype("float64")
    tol = 1e-10 if dtype == "float64" else 1e-4
    ctx.check_close(
        a64 @ ctx.to_numpy(x).astype("float64"), b.astype("float64"), rtol=tol, atol=tol
    )


@sweep("{dtype}-sweep", dtype=["complex64", "complex128"])
def triangular_solve_complex(ctx, dtype):
    import torch

    n = 5
    a_np = np.triu(ctx.rng.standard_normal((n, n)) + 1j * ctx.rng.standard_normal((n, n)))
    a_np += 4 * np.eye(n)
    b_np = ctx.rng.standard_normal((n, 2)) + 1j * ctx.rng.standard_normal((n, 2))
    out = ctx.measure(
        torch.triangular_solve, ctx.put(b_np.astype(dtype)), ctx.put(a_np.astype(dtype))
    )
    tol = 1e-4 if dtype == "complex64" else 1e-10
    ctx.check_close(out.solution, np.linalg.solve(a_np, b_np), rtol=tol, atol=tol)


def _tri(ctx, dtype, n, upper, batch=()):
    """A well-conditioned triangular matrix (complex where the dtype is)."""
    m = ctx.rng.standard_normal((*batch, n, n))
    if dtype in COMPLEXES:
        m = m + 1j * ctx.rng.standard_normal(m.shape)
    m = m + 2 * n * np.eye(n)
    return (np.triu(m) if upper else np.tril(m)).astype(dtype)


def _rhs(ctx, dtype, shape):
    b = ctx.rng.standard_normal(shape)
    if dtype in COMPLEXES:
        b = b + 1j * ctx.rng.standard_normal(shape)
    return b.astype(dtype)


# Every dtype (float32/64, complex64/128) x upper/lower x transpose, eager and under
# torch.compile: the solution against NumPy's float64/complex128 solve (transpose is the
# plain transpose, not the conjugate one); the second result is A's copy.
@sweep(
    "{dtype}-{mode}-{tri}-sweep",
    dtype=FULL_FLOATS + COMPLEXES,
    mode=EAGER_COMPILED,
    tri=["upper", "lower-transposed"],
)
def triangular_solve_dtypes(ctx, dtype, mode, tri):
    import torch

    upper, transpose = tri == "upper", tri == "lower-transposed"
    a = _tri(ctx, dtype, 5, upper, batch=(2,))
    b = _rhs(ctx, dtype, (2, 5, 3))

    def solve(b, a):
        return torch.triangular_solve(b, a, upper=upper, transpose=transpose)

    x, copy = ctx.measure(ctx.in_mode(mode, solve), ctx.put(b), ctx.put(a))
    ctx.check(x.dtype == getattr(torch, dtype), f"solution dtype {x.dtype}", "type")
    wide = a.astype("complex128")
    op = np.swapaxes(wide, -1, -2) if transpose else wide
    ctx.check_close(x, np.linalg.solve(op, b.astype("complex128")), dtype=dtype, kind="linalg")
    ctx.check_equal(copy, a)


# unitriangular=True reads the diagonal as ones whatever it holds (here 7s); batch dims
# broadcast (A batched, B not); a non-contiguous B (a transposed view) solves the same.
@sweep("{form}-form-sweep", form=["unitriangular", "broadcast-batch", "non-contiguous-b"])
def triangular_solve_forms(ctx, form):
    import torch

    a = _tri(ctx, "float64", 4, True, batch=(3,) if form == "broadcast-batch" else ())
    b = _rhs(ctx, "float64", (4, 2))
    if form == "unitriangular":
        a[..., range(4), range(4)] = 7.0
        x, _ = ctx.measure(torch.triangular_solve, ctx.put(b), ctx.put(a), unitriangular=True)
        unit = a.copy()
        unit[..., range(4), range(4)] = 1.0
        ctx.check_close(x, np.linalg.solve(unit, b), dtype="float64", kind="linalg")
        return
    b_t = ctx.put(np.ascontiguousarray(b.T)).t() if form == "non-contiguous-b" else ctx.put(b)
    if form == "non-contiguous-b":
        ctx.check(not b_t.is_contiguous(), "B view is contiguous", "type")
    x, _ = ctx.measure(torch.triangular_solve, b_t, ctx.put(a))
    ctx.check_close(
        x,
        np.linalg.solve(a, np.broadcast_to(b, a.shape[:-2] + b.shape)),
        dtype="float64",
        kind="linalg",
    )


# Empty shapes: zero right-hand sides and a 0x0 system both give empty solutions.
@sweep("empty-{shape}-sweep", shape=["no-rhs", "0x0"])
def triangular_solve_empty(ctx, shape):
    import torch

    n, k = (3, 0) if shape == "no-rhs" else (0, 2)
    a = ctx.put(np.eye(n))
    x, _ = ctx.measure(torch.triangular_solve, ctx.put(np.zeros((n, k))), a)
    ctx.check_equal(tuple(x.shape), (n, k))


# Gradients with respect to both A and B: gradcheck in float64 and complex128 (upper and
# transposed-lower), keeping A triangular by masking inside the function.
@sweep("gradcheck-{dtype}-{tri}-sweep", dtype=["float64", "complex128"], tri=["upper", "lower-t"])
def triangular_solve_gradcheck(ctx, dtype, tri):
    import torch

    upper = tri == "upper"
    a = ctx.put(_tri(ctx, dtype, 4, upper), requires_grad=True)
    b = ctx.put(_rhs(ctx, dtype, (4, 2)), requires_grad=True)

    def solve(b, a):
        a = a.triu() if upper else a.tril()
        return torch.triangular_solve(b, a, upper=upper, transpose=not upper).solution

    ok = ctx.measure(torch.autograd.gradcheck, solve, (b, a), warm=False)
    ctx.check(bool(ok), "autograd disagrees with finite differences")


# Closed form in float32: X = A^{-1} B, so for loss = sum(X), dL/dB = A^{-T} 1.
@case("grad-b-float32")
def triangular_solve_grad_b(ctx):
    import torch

    a_np = _tri(ctx, "float32", 5, False)
    b = ctx.put(_rhs(ctx, "float32", (5, 2)), requires_grad=True)
    a = ctx.put(a_np)

    def backward():
        b.grad = None
        torch.triangular_solve(b, a, upper=False).solution.sum().backward()
        return b.grad

    expected = np.linalg.solve(a_np.astype("float64").T, np.ones((5, 2)))
    ctx.check_close(ctx.measure(backward), expected, dtype="float32", kind="linalg")


# By design the CPU kernel has no half-width or integer versions.
@sweep("{dtype}-refused-sweep", dtype=["float16", "bfloat16", "int64"])
def triangular_solve_refused(ctx, dtype):
    import torch

    a = ctx.put(np.eye(3, dtype="float32"), dtype=dtype)
    b = ctx.put(np.ones((3, 1), dtype="float32"), dtype=dtype)

    def attempt():
        try:
            torch.triangular_solve(b, a)
        except (RuntimeError, NotImplementedError):
            return True
        return False

    ctx.check(ctx.measure(attempt), f"triangular_solve accepted {dtype}", category="type")


# The study's kinds of paths (issue #33): the refusals with class and message (a non-square
# A; B of another height; B of another dtype), the full grid of upper x transpose x
# unitriangular against NumPy, vmap over a batch, and second derivatives.
@sweep("raises-{arg}", arg=["non-square", "rhs-height", "dtype-mismatch"])
def triangular_solve_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    a, b, fragment = {
        "non-square": (np.zeros((4, 3)), np.zeros((4, 1)), "square matrices"),
        "rhs-height": (
            np.eye(3),
            np.zeros((4, 1)),
            "Incompatible matrix sizes for triangular_solve",
        ),
        "dtype-mismatch": (
            np.eye(3),
            np.zeros((3, 1), dtype="float32"),
            "Expected b and A to have the same dtype",
        ),
    }[arg]
    A, B = ctx.put(a), ctx.put(b)
    refusal(ctx, lambda: torch.triangular_solve(B, A), RuntimeError, fragment)


@sweep(
    "flags-{tri}-{op}-{diag}",
    tri=["upper", "lower"],
    op=["plain", "transpose"],
    diag=["general", "unitriangular"],
)
def triangular_solve_grid(ctx, tri, op, diag):
    import torch

    upper, transpose, unit = tri == "upper", op == "transpose", diag == "unitriangular"
    a = _tri(ctx, "float64", 5, upper)
    if unit:
        a[range(5), range(5)] = 9.0  # ignored: read as ones
    b = _rhs(ctx, "float64", (5, 3))
    x, _ = ctx.measure(
        torch.triangular_solve,
        ctx.put(b),
        ctx.put(a),
        upper=upper,
        transpose=transpose,
        unitriangular=unit,
    )
    eff = a.copy()
    if unit:
        eff[range(5), range(5)] = 1.0
    eff = eff.T if transpose else eff
    ctx.check_close(x, np.linalg.solve(eff, b), dtype="float64", kind="linalg")


@case("vmap-batch")
def triangular_solve_vmap(ctx):
    import torch
    from _torchhelp import vmap

    a = _tri(ctx, "float64", 4, True, batch=(3,))
    b = _rhs(ctx, "float64", (3, 4, 2))
    out = ctx.measure(
        vmap(ctx)(lambda bb, aa: torch.triangular_solve(bb, aa).solution), ctx.put(b), ctx.put(a)
    )
    ctx.check_close(out, np.linalg.solve(a, b), dtype="float64", kind="linalg")


@case("grad2-gradgradcheck")
def triangular_solve_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    def solve(b, a):
        return torch.triangular_solve(b, a.triu()).solution

    gradgradcheck(ctx, solve, _rhs(ctx, "float64", (3, 2)), _tri(ctx, "float64", 3, True))
