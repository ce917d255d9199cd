"""jax.scipy.signal.convolve2d: modes full/same/valid against a direct NumPy convolution."""

import numpy as np

from portbench_runner.api import case


def reference(a, k, mode):
    """Direct 2-d convolution (flipped kernel) in float64, cropped like scipy.signal."""
    ka, kb = k.shape
    full = np.zeros((a.shape[0] + ka - 1, a.shape[1] + kb - 1))
    for i in range(ka):
        for j in range(kb):
            full[i : i + a.shape[0], j : j + a.shape[1]] += k[i, j] * a
    if mode == "full":
        return full
    if mode == "valid":
        return full[ka - 1 : a.shape[0], kb - 1 : a.shape[1]]
    top, left = (ka - 1) // 2, (kb - 1) // 2
    return full[top : top + a.shape[0], left : left + a.shape[1]]


@case("full", mode="full")
@case("same", mode="same")
@case("valid", mode="valid")
@case("float64-same", mode="same", dtype="float64")
@case("large-valid", mode="valid", shape=(512, 512))
def convolve2d_values(ctx, mode, dtype="float32", shape=(32, 40)):
    import jax.scipy.signal as jsig

    a = ctx.rng.standard_normal(shape).astype(dtype)
    k = ctx.rng.standard_normal((5, 3)).astype(dtype)
    out = ctx.measure(jsig.convolve2d, ctx.put(a), ctx.put(k), mode=mode)
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(
        out, reference(a.astype("float64"), k.astype("float64"), mode), rtol=tol, atol=tol * 10
    )
