"""torch.nn.KLDivLoss: KL(target || input) with log-probability inputs; reductions,
log_target, zero targets, autograd."""

import numpy as np

from portbench_runner.api import case


def _log_softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


@case("batchmean", reduction="batchmean")
@case("sum", reduction="sum")
@case("none", reduction="none")
@case("float64-mean", reduction="mean", dtype="float64")
def kl_values(ctx, reduction, dtype="float32"):
    import torch

    logp = _log_softmax(ctx.rng.standard_normal((16, 10))).astype(dtype)
    q = np.exp(_log_softmax(ctx.rng.standard_normal((16, 10)))).astype(dtype)
    out = ctx.measure(torch.nn.KLDivLoss(reduction=reduction), ctx.put(logp), ctx.put(q))
    pointwise = q.astype("float64") * (np.log(q.astype("float64")) - logp.astype("float64"))
    expected = {
        "batchmean": pointwise.sum() / 16,
        "sum": pointwise.sum(),
        "none": pointwise,
        "mean": pointwise.mean(),
    }[reduction]
    ctx.check_close(out, expected, rtol=1e-5, atol=1e-6)


@case("log-target")
def kl_log_target(ctx):
    import torch

    logp = _log_softmax(ctx.rng.standard_normal((4, 5)))
    logq = _log_softmax(ctx.rng.standard_normal((4, 5)))
    out = ctx.measure(
        torch.nn.KLDivLoss(reduction="sum", log_target=True), ctx.put(logp), ctx.put(logq)
    )
    ctx.check_close(out, (np.exp(logq) * (logq - logp)).sum(), dtype="float64")


@case("zero-target-contributes-zero")
def kl_zero_target(ctx):
    import torch

    logp = ctx.put(np.log(np.array([[0.5, 0.5]])))
    out = ctx.measure(torch.nn.KLDivLoss(reduction="sum"), logp, ctx.put(np.array([[1.0, 0.0]])))
    ctx.check_close(out, np.log(2.0), dtype="float64")
