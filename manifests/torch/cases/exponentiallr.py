"""torch.optim.lr_scheduler.ExponentialLR: lr = lr0 * gamma^epoch, per param group."""

import numpy as np

from portbench_runner.api import case


def _optimizer(ctx, lrs=(0.1,)):
    import torch

    params = [torch.nn.Parameter(ctx.put(np.zeros(2, dtype="float32"))) for _ in lrs]
    return torch.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, lrs)], lr=lrs[0])


@case("ten-epochs", gamma=0.9, epochs=10)
@case("gamma-one-constant", gamma=1.0, epochs=5)
@case("many-epochs", gamma=0.99, epochs=1000)
def exponential_schedule(ctx, gamma, epochs):
    import torch

    opt = _optimizer(ctx)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=gamma)

    def run():
        for _ in range(epochs):
            opt.step()
            sched.step()
        return opt.param_groups[0]["lr"]

    lr = ctx.measure(run, warm=False)
    ctx.check_close(lr, 0.1 * gamma**epochs, dtype="float64", rtol=1e-9)


@case("per-group-learning-rates")
def exponential_groups(ctx):
    import torch

    opt = _optimizer(ctx, (0.1, 0.02))
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)

    def run():
        for _ in range(3):
            opt.step()
            sched.step()
        return [g["lr"] for g in opt.param_groups]

    ctx.check_close(ctx.measure(run, warm=False), [0.1 / 8, 0.02 / 8], dtype="float64")
