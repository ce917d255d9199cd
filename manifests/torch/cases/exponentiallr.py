"""torch.optim.lr_scheduler.ExponentialLR: lr = lr0 * gamma^epoch, per param group."""

import numpy as np

from portbench_runner.api import case, sweep


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


# The schedule as users drive it: with each optimizer family (the scheduler only rewrites
# param_groups' lr), through a state_dict resume, get_last_lr, chained with another
# scheduler, and a tensor learning rate.
@sweep("with-{optimizer}-sweep", optimizer=["SGD", "Adam", "Adamax", "RMSprop", "LBFGS"])
def exponential_optimizers(ctx, optimizer):
    import torch

    p = torch.nn.Parameter(ctx.put(np.ones(3, dtype="float32")))
    opt = getattr(torch.optim, optimizer)([p], lr=0.2)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.8)

    def run():
        for _ in range(6):
            sched.step()
        return opt.param_groups[0]["lr"]

    ctx.check_close(ctx.measure(run, warm=False), 0.2 * 0.8**6, dtype="float64")


@sweep(
    "{form}-sweep",
    form=[
        "state-dict-resume",
        "get-last-lr",
        "chained-steplr",
        "last-epoch-resume",
        "tensor-lr",
        "lr-changes-updates",
    ],
)
def exponential_forms(ctx, form):
    import torch

    p = torch.nn.Parameter(ctx.put(np.ones(2, dtype="float32")))
    opt = torch.optim.SGD([p], lr=0.5)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    if form == "state-dict-resume":
        for _ in range(3):
            sched.step()
        opt2 = torch.optim.SGD([p], lr=0.5)
        opt2.load_state_dict(opt.state_dict())
        sched2 = torch.optim.lr_scheduler.ExponentialLR(opt2, gamma=0.5)
        sched2.load_state_dict(sched.state_dict())
        ctx.measure(sched2.step, warm=False)
        ctx.check_close(opt2.param_groups[0]["lr"], 0.5 * 0.5**4, dtype="float64")
    elif form == "get-last-lr":
        sched.step()
        sched.step()
        ctx.check_close(ctx.measure(sched.get_last_lr), [0.5 * 0.25], dtype="float64")
    elif form == "chained-steplr":
        # Two schedulers on one optimizer multiply: ExponentialLR x StepLR(step 2, gamma 0.1).
        step = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)

        def run():
            for _ in range(4):
                sched.step()
                step.step()
            return opt.param_groups[0]["lr"]

        ctx.check_close(ctx.measure(run, warm=False), 0.5 * 0.5**4 * 0.1**2, dtype="float64")
    elif form == "last-epoch-resume":
        # Resuming at epoch 4 needs initial_lr in the groups. What the constructor itself does
        # to lr differs across versions; from there on each step multiplies it by gamma.
        opt.param_groups[0]["initial_lr"] = 0.5
        opt.param_groups[0]["lr"] = 0.5 * 0.5**4
        resumed = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5, last_epoch=4)
        start, epoch = opt.param_groups[0]["lr"], resumed.last_epoch
        ctx.measure(resumed.step, warm=False)
        ctx.check(resumed.last_epoch == epoch + 1, f"last_epoch {resumed.last_epoch}", "other")
        ctx.check_close(opt.param_groups[0]["lr"], start * 0.5, dtype="float64")
    elif form == "tensor-lr":
        if not ctx.version_at_least("2.2"):
            ctx.skip(f"a Tensor lr for SGD arrived in torch 2.2 (this is {ctx.version})")
        tp = torch.nn.Parameter(ctx.put(np.ones(2, dtype="float32")))
        topt = torch.optim.SGD([tp], lr=torch.tensor(0.5))
        tsched = torch.optim.lr_scheduler.ExponentialLR(topt, gamma=0.5)

        def run():
            for _ in range(3):
                tsched.step()
            return float(topt.param_groups[0]["lr"])  # a host tensor: read as a number

        ctx.check_close(ctx.measure(run, warm=False), 0.5 * 0.5**3, dtype="float32")
    else:
        # The decayed lr is what the optimizer uses: after two decays, one SGD step of grad 1
        # moves the parameter by 0.5 * 0.25.
        sched.step()
        sched.step()
        p.grad = ctx.put(np.ones(2, dtype="float32"))
        ctx.measure(opt.step, warm=False)
        ctx.check_close(p.detach(), [1 - 0.125, 1 - 0.125], dtype="float32")


# The study's kinds of paths (issue #33): the documented refusals (no optimizer; resuming
# at last_epoch without the groups' initial_lr), and a checkpoint of optimizer and
# scheduler through torch.save/torch.load that resumes the schedule where it stopped.
@sweep("raises-{arg}", arg=["not-an-optimizer", "resume-without-initial-lr"])
def exponential_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    if arg == "not-an-optimizer":
        refusal(
            ctx,
            lambda: torch.optim.lr_scheduler.ExponentialLR(3, gamma=0.5),
            TypeError,
            "is not an Optimizer",
        )
        return
    opt = _optimizer(ctx)
    refusal(
        ctx,
        lambda: torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5, last_epoch=3),
        KeyError,
        "initial_lr",
    )


@case("checkpoint-saved-checkpoint")
def exponential_checkpoint(ctx):
    import torch
    from _torchhelp import saved

    opt = _optimizer(ctx, (0.1, 0.02))
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.7)
    for _ in range(3):
        opt.step()
        sched.step()
    checkpoint = saved({"opt": opt.state_dict(), "sched": sched.state_dict()})
    opt2 = _optimizer(ctx, (1.0, 1.0))  # other lrs: the checkpoint's come back
    opt2.load_state_dict(checkpoint["opt"])
    sched2 = torch.optim.lr_scheduler.ExponentialLR(opt2, gamma=0.7)
    sched2.load_state_dict(checkpoint["sched"])

    def resume():
        for _ in range(2):
            opt2.step()
            sched2.step()
        return [g["lr"] for g in opt2.param_groups]

    got = ctx.measure(resume, warm=False)
    ctx.check(sched2.last_epoch == 5, f"last_epoch {sched2.last_epoch}, not 5")
    ctx.check_close(got, [0.1 * 0.7**5, 0.02 * 0.7**5], dtype="float64")
