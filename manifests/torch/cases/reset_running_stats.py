"""torch.nn.BatchNorm2d.reset_running_stats: running mean 0, variance 1, counter 0; affine kept."""

import numpy as np
from _torchhelp import EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

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


# Every float width a BatchNorm2d's buffers take (half widths included): after a training
# step the reset refills running_mean with 0 and running_var with 1 in the module's dtype,
# and num_batches_tracked (int64) with 0; eager, and the reset under torch.compile.
@sweep("{dtype}-{mode}-sweep", dtype=HALF_FLOATS + FULL_FLOATS, mode=EAGER_COMPILED)
def reset_dtypes(ctx, dtype, mode):
    import torch

    bn = torch.nn.BatchNorm2d(3).to(device=ctx.device, dtype=getattr(torch, dtype))
    with torch.no_grad():  # as a training step would leave them, without running one
        bn.running_mean.fill_(2.0)
        bn.running_var.fill_(5.0)
        bn.num_batches_tracked.fill_(4)

    def reset():
        bn.reset_running_stats()
        return bn.running_var

    ctx.measure(ctx.in_mode(mode, reset), warm=False)
    ctx.check(
        bn.running_mean.dtype == getattr(torch, dtype)
        and bn.num_batches_tracked.dtype == torch.int64,
        f"buffers {bn.running_mean.dtype}, {bn.num_batches_tracked.dtype}",
        "type",
    )
    ctx.check_equal(bn.running_mean.float(), np.zeros(3))
    ctx.check_equal(bn.running_var.float(), np.ones(3))
    ctx.check_equal(bn.num_batches_tracked, 0)


# The reset is in place: tensors held before it (e.g. by an optimizer or a state_dict
# view) see the new values.
@case("in-place-buffers")
def reset_in_place(ctx):
    bn = _trained_bn(ctx)
    held_mean, held_var = bn.running_mean, bn.running_var
    ctx.measure(bn.reset_running_stats, warm=False)
    ctx.check(bn.running_mean is held_mean and bn.running_var is held_var, "buffers replaced")
    ctx.check_equal(held_mean, np.zeros(4))
    ctx.check_equal(held_var, np.ones(4))


# Forms: track_running_stats=False has no buffers (the reset is a no-op), affine=False has
# no weight but still resets, and training after a reset counts from 1 with momentum 0.1
# from (0, 1): mean = 0.1 * batch mean, var = 0.9 + 0.1 * unbiased batch var.
@sweep("{form}-form-sweep", form=["no-tracking", "no-affine", "train-after-reset"])
def reset_forms(ctx, form):
    import torch

    if form == "no-tracking":
        bn = torch.nn.BatchNorm2d(4, track_running_stats=False).to(ctx.device)
        ctx.measure(bn.reset_running_stats, warm=False)
        ctx.check(bn.running_mean is None and bn.num_batches_tracked is None, "buffers exist")
        return
    if form == "no-affine":
        bn = torch.nn.BatchNorm2d(4, affine=False).to(ctx.device)
        bn(ctx.put(ctx.rng.standard_normal((4, 4, 3, 3)).astype("float32") + 1))
        ctx.measure(bn.reset_running_stats, warm=False)
        ctx.check(bn.weight is None, "an affine weight appeared")
        ctx.check_equal(bn.running_mean, np.zeros(4))
        ctx.check_equal(bn.num_batches_tracked, 0)
        return
    bn = _trained_bn(ctx)
    x = ctx.rng.standard_normal((6, 4, 3, 3))

    def reset_and_train():
        bn.reset_running_stats()
        bn(ctx.put(x.astype("float64"), dtype="float32"))
        return bn.running_mean, bn.running_var

    mean, var = ctx.measure(reset_and_train, warm=False)
    xs = x.astype("float32").astype("float64")
    ctx.check_close(mean, 0.1 * xs.mean(axis=(0, 2, 3)), dtype="float32", kind="reduction")
    expected_var = 0.9 + 0.1 * xs.var(axis=(0, 2, 3), ddof=1)
    ctx.check_close(var, expected_var, dtype="float32", kind="reduction")
    ctx.check_equal(bn.num_batches_tracked, 1)


# The same method on BatchNorm1d/3d and a tracking InstanceNorm2d (all share _NormBase's
# reset): each resets its buffers.
@sweep("{module}-module-sweep", module=["BatchNorm1d", "BatchNorm3d", "InstanceNorm2d"])
def reset_other_modules(ctx, module):
    import torch

    opts = {"track_running_stats": True} if module == "InstanceNorm2d" else {}
    bn = getattr(torch.nn, module)(3, **opts).to(ctx.device)
    with torch.no_grad():
        bn.running_mean.fill_(1.5)
        bn.running_var.fill_(0.25)
        bn.num_batches_tracked.fill_(9)
    ctx.measure(bn.reset_running_stats, warm=False)
    ctx.check_equal(bn.running_mean, np.zeros(3))
    ctx.check_equal(bn.running_var, np.ones(3))
    ctx.check_equal(bn.num_batches_tracked, 0)


# The study's kinds of paths (issue #33): checkpoint/restore around the reset (the reset
# buffers through torch.save into a trained module; a state dict taken before the reset
# holds references, so it sees the reset, while a saved one does not), and the grid of
# affine x momentum for training that follows a reset.
@sweep("checkpoint-{form}", form=["saved-reset-buffers", "in-memory-aliases", "saved-before-reset"])
def reset_restore(ctx, form):
    from _torchhelp import saved

    bn = _trained_bn(ctx)
    if form == "saved-reset-buffers":
        bn.reset_running_stats()
        checkpoint = saved(bn.state_dict())
        target = _trained_bn(ctx)  # statistics of a training step, replaced by the load
        ctx.measure(target.load_state_dict, checkpoint, warm=False)
        ctx.check_equal(target.running_mean, np.zeros(4))
        ctx.check_equal(target.running_var, np.ones(4))
        ctx.check_equal(target.num_batches_tracked, 0)
        return
    state = bn.state_dict() if form == "in-memory-aliases" else saved(bn.state_dict())
    before = ctx.to_numpy(state["running_mean"]).copy()
    ctx.check(bool(np.any(before != 0)), "the training step left a zero mean")
    ctx.measure(bn.reset_running_stats, warm=False)
    if form == "in-memory-aliases":
        # state_dict returns references to the buffers: the reset is seen through them.
        ctx.check_equal(state["running_mean"], np.zeros(4))
        ctx.check_equal(state["num_batches_tracked"], 0)
    else:
        ctx.check_equal(state["running_mean"], before)  # the saved copy keeps its values
        bn.load_state_dict(state)
        ctx.check_equal(bn.running_mean, before)


@sweep("flags-{affine}-{momentum}", affine=["affine", "plain"], momentum=["0.1", "cumulative"])
def reset_grid(ctx, affine, momentum):
    import torch

    m = None if momentum == "cumulative" else float(momentum)
    bn = torch.nn.BatchNorm1d(3, affine=affine == "affine", momentum=m)
    bn = bn.to(device=ctx.device, dtype=torch.float64).train()
    bn(ctx.put(ctx.rng.standard_normal((8, 3)) * 4 + 2))
    batches = [ctx.rng.standard_normal((8, 3)) + k for k in range(3)]

    def reset_and_train():
        bn.reset_running_stats()
        for b in batches:
            bn(ctx.put(b))
        return bn.running_mean, bn.running_var

    mean, var = ctx.measure(reset_and_train, warm=False)
    want_mean, want_var = np.zeros(3), np.ones(3)
    for k, b in enumerate(batches, start=1):
        f = 1 / k if m is None else m  # a cumulative average, or the momentum's weight
        want_mean = (1 - f) * want_mean + f * b.mean(axis=0)
        want_var = (1 - f) * want_var + f * b.var(axis=0, ddof=1)
    ctx.check_close(mean, want_mean, dtype="float64", kind="reduction", what="running mean")
    ctx.check_close(var, want_var, dtype="float64", kind="reduction", what="running var")
    ctx.check_equal(bn.num_batches_tracked, 3)
