"""torch.nn.Dropout3d: zeroes whole channels with probability p in training (survivors scaled
by 1/(1-p)); identity in eval."""

import numpy as np

from portbench_runner.api import case


@case("p-half", p=0.5)
@case("p-point-2", p=0.2)
@case("large", p=0.5, shape=(8, 64, 16, 16, 16))
def dropout3d_train(ctx, p, shape=(4, 32, 4, 4, 4)):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    torch.manual_seed(ctx.seed)
    drop = torch.nn.Dropout3d(p).train()
    x = np.ones(shape, dtype="float32")
    out = ctx.to_numpy(ctx.measure(drop, ctx.put(x)))
    per_channel = out.reshape(shape[0], shape[1], -1)
    # Each channel is all zero or all 1/(1-p).
    ctx.check(
        np.all(np.isclose(per_channel.min(axis=2), per_channel.max(axis=2))),
        "a channel was partly dropped",
    )
    kept = per_channel[:, :, 0] != 0
    ctx.check_close(per_channel[kept][:, 0], np.full(kept.sum(), 1 / (1 - p)), dtype="float32")
    ctx.check(abs(1 - kept.mean() - p) < 0.15, f"dropped share {1 - kept.mean():.2f}, expected {p}")


@case("eval-is-identity")
def dropout3d_eval(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    drop = torch.nn.Dropout3d(0.9).eval()
    x = ctx.rng.standard_normal((2, 3, 2, 2, 2)).astype("float32")
    ctx.check_equal(ctx.measure(drop, ctx.put(x)), x)
