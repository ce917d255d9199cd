"""jax.numpy.linalg.eig: eigenpairs of general matrices (A v = lambda v); CPU-only in JAX."""

import numpy as np
from _jaxhelp import COMPLEX, FLOATS_32_64, MODES

from portbench_runner.api import case, sweep

# LAPACK has no half-precision kernels: JAX refuses float16 and bfloat16 on the CPU
# ("Unsupported dtype"), so the sweeps below cover the dtypes it computes in, and int32,
# which it promotes to float32.
PROMOTED_INTS = ("int32",)


@case("float32-16", dtype="float32", n=16)
@case("float64-32", dtype="float64", n=32)
@case("float32-128", dtype="float32", n=128)
@case("complex64-8", dtype="complex64", n=8)
def eig_pairs(ctx, dtype, n):
    import jax.numpy as jnp

    a = ctx.rng.standard_normal((n, n))
    if dtype.startswith("complex"):
        a = a + 1j * ctx.rng.standard_normal((n, n))
    a = a.astype(dtype)
    w, v = ctx.measure(jnp.linalg.eig, ctx.put(a))
    w, v = (np.asarray(ctx.to_numpy(t)).astype("complex128") for t in (w, v))
    a64 = a.astype("complex128")
    tol = 1e-3 if dtype in ("float32", "complex64") else 1e-9
    ctx.check_close(a64 @ v, v * w[None, :], rtol=tol, atol=tol * np.abs(a64).max() * n)
    reference = np.linalg.eigvals(a64)
    # Eigenvalues come in no particular order: each must be near one of the reference's.
    distance = np.abs(w[:, None] - reference[None, :]).min(axis=1)
    ctx.check(
        distance.max() <= tol * n * np.abs(reference).max(),
        f"eigenvalues off by up to {distance.max():.3g}",
    )


@case("symmetric-has-real-eigenvalues")
def eig_symmetric(ctx):
    import jax.numpy as jnp

    m = ctx.rng.standard_normal((10, 10))
    a = (m + m.T).astype("float64")
    w, _ = ctx.measure(jnp.linalg.eig, ctx.put(a))
    w = np.asarray(ctx.to_numpy(w))
    ctx.check(np.abs(w.imag).max() < 1e-9, f"symmetric matrix gave complex eigenvalues {w}")
    ctx.check_close(np.sort(w.real), np.linalg.eigvalsh(a), dtype="float64", atol=1e-9)


# Every dtype jnp.linalg.eig takes on the CPU (JAX computes eig on the CPU only), eager and
# under jax.jit, over a batch: A v = v diag(w) for each matrix, eigenvalues near NumPy's.
# No gradient sweep: JAX refuses eigenvector derivatives of non-symmetric matrices by
# design (NotImplementedError, see enable_eigvec_derivs); new names, so the cases above
# keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=FLOATS_32_64 + COMPLEX + PROMOTED_INTS, mode=MODES)
def eig_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import draw, placed

    n = 6
    a, exact = placed(ctx, draw(ctx, (3, n, n), dtype, -4, 4), dtype)
    w, v = ctx.measure(ctx.in_mode(mode, jnp.linalg.eig), a)
    w, v = (np.asarray(ctx.to_numpy(t)).astype("complex128") for t in (w, v))
    a64 = exact.astype("complex128")
    tol = 1e-9 if dtype in ("float64", "complex128") else 1e-3
    scale = np.abs(a64).max() * n
    ctx.check_close(a64 @ v, v * w[:, None, :], rtol=tol, atol=tol * scale, what="A V - V diag(w)")
    reference = np.linalg.eigvals(a64)
    distance = np.abs(w[:, :, None] - reference[:, None, :]).min(axis=2)
    ctx.check(distance.max() <= tol * scale, f"eigenvalues off by up to {distance.max():.3g}")


# The study's other kinds of paths: the documented error for a non-square matrix (exact type;
# the message changed in jax 0.5.1 but names eig and the shape in both), and jax.vmap over a
# batch of matrices, eager and under jax.jit. New names; the cases above keep their ids.
@case("error-non-square")
def eig_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    check_raises(ctx, lambda: jnp.linalg.eig(x), ValueError, r"eig.*\(3, 4\)")


@sweep("vmap-{mode}-sweep", mode=MODES)
def eig_vmap(ctx, mode):
    import jax
    import jax.numpy as jnp

    a = ctx.rng.uniform(-2, 2, (4, 5, 5))
    w, v = (
        np.asarray(ctx.to_numpy(t))
        for t in ctx.measure(ctx.in_mode(mode, jax.vmap(jnp.linalg.eig)), ctx.put(a))
    )
    ctx.check(w.shape == (4, 5) and v.shape == (4, 5, 5), f"shapes {w.shape} {v.shape}", "other")
    for k in range(4):
        ctx.check_close(
            a[k] @ v[k], v[k] * w[k], rtol=1e-9, atol=1e-9, what=f"matrix {k}: A v = v lambda"
        )
        ctx.check_close(
            np.sort_complex(w[k]), np.sort_complex(np.linalg.eigvals(a[k])), rtol=1e-9, atol=1e-9
        )
