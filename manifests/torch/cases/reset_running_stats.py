"""torch.nn.BatchNorm2d.reset_running_stats: running mean 0, variance 1, counter 0; affine kept."""

import numpy as np

from portbench_runner.api import case, sweep


def _trained_bn(ctx, channels=4):
    import torch

    bn = torch.nn.BatchNorm2d(channels).to(ctx.device)
    bn.train()
    bn(ctx.put(ctx.rng.standard_normal((8, channels, 5, 5)).astype("float32") * 3 + 2))
    return bn


@case("resets-statistics")
@case("resets-statistics-64-channels", channels=64)
def reset_values(ctx, channels=4):
    bn = _trained_bn(ctx, channels)
    ctx.measure(bn.reset_running_stats, warm=False)
    ctx.check_equal(bn.running_mean, np.zeros(channels))
    ctx.check_equal(bn.running_var, np.ones(channels))
    ctx.check_equal(bn.num_batches_tracked, 0)


@case("keeps-affine-parameters")
def reset_keeps_affine(ctx):
    import torch

    bn = _trained_bn(ctx)
    with torch.no_grad():
        bn.weight.fill_(3.0)
    ctx.measure(bn.reset_running_stats, warm=False)
    ctx.check_equal(bn.weight.detach(), np.full(4, 3.0))


@case("eval-after-reset-is-identity-ish")
def reset_eval(ctx):
    bn = _trained_bn(ctx)
    ctx.measure(bn.reset_running_stats, warm=False)
    bn.eval()
    x = ctx.rng.standard_normal((2, 4, 3, 3)).astype("float32")
    out = bn(ctx.put(x))
    # Mean 0, variance 1: eval normalizes by sqrt(1 + eps).
    ctx.check_close(out.detach(), x / np.sqrt(1 + bn.eps), dtype="float32")


@sweep("{dtype}-simple-average", dtype=["bfloat16", "float32", "float64"])
def reset_then_average(ctx, dtype):
    import torch

    # momentum=None: a cumulative average of the batch statistics after a reset.
    bn = torch.nn.BatchNorm1d(3, momentum=None).to(device=ctx.device, dtype=getattr(torch, dtype))
    bn.reset_running_stats()
    batches = [ctx.rng.standard_normal((8, 3)).astype("float32") for _ in range(2)]
    placed = [ctx.put(b, dtype=dtype) for b in batches]

    def train():
        bn.reset_running_stats()
        for b in placed:
            bn(b)
        return bn.running_mean

    out = ctx.measure(train, warm=False)
    means = [ctx.to_numpy(p).astype("float64").mean(axis=0) for p in placed]
    tol = 2e-2 if dtype == "bfloat16" else 1e-5
    ctx.check_close(out, np.mean(means, axis=0), rtol=tol, atol=tol)
