"""torch.logdet (the study's det/logdet/slogdet test): log-determinants, signs, batches."""

import numpy as np

from portbench_runner.api import case


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
