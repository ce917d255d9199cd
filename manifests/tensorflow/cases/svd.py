"""tf.linalg.svd: singular values, reconstruction, batches, full_matrices, XLA."""

import numpy as np

from portbench_runner.api import case


@case("float32-values", dtype="float32", shape=(64, 64))
@case("float64-uv", dtype="float64", shape=(48, 24), compute_uv=True)
@case("float32-batched-uv", dtype="float32", shape=(8, 16, 12), compute_uv=True)
@case("float32-xla", dtype="float32", shape=(32, 32), xla=True)
@case("float32-large", dtype="float32", shape=(512, 512))
def svd_values(ctx, dtype, shape, compute_uv=False, xla=False):
    import tensorflow as tf

    a = ctx.rng.standard_normal(shape).astype(dtype)
    fn = lambda t: tf.linalg.svd(t, compute_uv=compute_uv)  # noqa: E731
    if xla:
        fn = ctx.compiled(fn)
    out = ctx.measure(fn, ctx.put(a))
    tol = 1e-4 if dtype == "float32" else 1e-10
    expected_s = np.linalg.svd(a.astype("float64"), compute_uv=False)
    s = out[0] if compute_uv else out
    ctx.check_close(s, expected_s, rtol=tol, atol=tol * expected_s.max())
    if compute_uv:
        s_np, u, v = (ctx.to_numpy(t).astype("float64") for t in out)
        rebuilt = u @ (s_np[..., :, None] * np.swapaxes(v, -1, -2))
        ctx.check_close(
            rebuilt,
            a.astype("float64"),
            rtol=tol * 10,
            atol=tol * 10 * expected_s.max(),
            what="U S V^T",
        )
