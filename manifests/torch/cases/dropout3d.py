"""torch.nn.Dropout3d: zeroes whole channels with probability p in training (survivors scaled
by 1/(1-p)); identity in eval."""

import numpy as np
from _torchhelp import EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


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


# Every float dtype Dropout3d takes on the CPU (complex is refused there, as for dropout),
# in each mode; a channel is dropped or kept whole, survivors scaled exactly by 1/(1-p).
@sweep("{dtype}-{mode}-sweep", dtype=HALF_FLOATS + FULL_FLOATS, mode=EAGER_COMPILED)
def dropout3d_dtypes(ctx, dtype, mode):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    torch.manual_seed(ctx.seed)
    shape = (8, 32, 2, 2, 2)
    x = ctx.put(np.full(shape, 3.0, dtype="float32"), dtype=dtype)
    out = ctx.measure(ctx.in_mode(mode, torch.nn.Dropout3d(0.5).train()), x)
    ctx.check(out.dtype == x.dtype, f"dtype {out.dtype}, not {x.dtype}")
    per_channel = np.asarray(ctx.to_numpy(out), dtype="float64").reshape(8, 32, -1)
    ctx.check(bool(np.all(per_channel.min(axis=2) == per_channel.max(axis=2))), "a channel split")
    kept = per_channel[:, :, 0] != 0
    ctx.check_equal(per_channel[kept][:, 0], np.full(kept.sum(), 6.0))
    # 256 channels: the kept share's standard deviation is 0.031; 0.15 is about 5 of them.
    ctx.check(abs(kept.mean() - 0.5) < 0.15, f"kept share {kept.mean():.2f}, expected 0.5")


@sweep("{form}-sweep", form=["unbatched", "in-place", "p-zero", "p-one", "functional", "grad"])
def dropout3d_forms(ctx, form):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    import torch.nn.functional as F

    torch.manual_seed(ctx.seed)
    shape = (4, 16, 2, 3, 2) if form != "unbatched" else (16, 2, 3, 2)
    x = ctx.put(np.ones(shape, dtype="float32"), requires_grad=form == "grad")
    if form == "unbatched":
        out = ctx.measure(torch.nn.Dropout3d(0.5).train(), x)  # (C, D, H, W): whole channels
        flat = ctx.to_numpy(out).reshape(16, -1)
    elif form == "in-place":
        out = ctx.measure(torch.nn.Dropout3d(0.5, inplace=True).train(), x, warm=False)
        ctx.check(out.data_ptr() == x.data_ptr(), "inplace=True made a new tensor", "other")
        flat = ctx.to_numpy(x).reshape(64, -1)
    elif form in ("p-zero", "p-one"):
        p = 0.0 if form == "p-zero" else 1.0
        out = ctx.measure(torch.nn.Dropout3d(p).train(), x)
        ctx.check_equal(out, np.full(shape, 1.0 if p == 0 else 0.0))
        return
    elif form == "functional":
        flat = ctx.to_numpy(ctx.measure(F.dropout3d, x, 0.5, True)).reshape(64, -1)
    else:

        def backward():
            x.grad = None
            y = F.dropout3d(x, 0.5, True)
            y.sum().backward()
            return y, x.grad

        y, grad = ctx.measure(backward, warm=False)
        ctx.check_equal(grad, ctx.to_numpy(y.detach()))
        return
    ctx.check(bool(np.all(flat.min(axis=1) == flat.max(axis=1))), "a channel was split")
    ctx.check(set(np.unique(flat).tolist()) <= {0.0, 2.0}, "survivors not scaled by 2")


# The study's kinds of paths (issue #33): the refusal of p outside [0, 1] (module and
# functional; class and message), the global generator's state restored draws the same
# channels, and the full grid of training x inplace x batched input.
@sweep("raises-p-{form}", form=["module", "functional"])
def dropout3d_refusals(ctx, form):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    import torch.nn.functional as F
    from _torchhelp import refusal

    x = ctx.put(np.ones((2, 2, 2, 2, 2), dtype="float32"))
    attempt = (
        (lambda: torch.nn.Dropout3d(-0.1))
        if form == "module"
        else (lambda: F.dropout3d(x, 2.0, True))
    )
    refusal(ctx, attempt, ValueError, "dropout probability has to be between 0 and 1")


@case("checkpoint-rng-state")
def dropout3d_restore(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from _torchhelp import rng_state

    get_state, set_state = rng_state(ctx)
    layer = torch.nn.Dropout3d(0.5).train()
    x = ctx.put(np.ones((4, 32, 2, 2, 2), dtype="float32"))
    state = get_state()
    first = ctx.to_numpy(layer(x))

    def replay():
        set_state(state)
        return layer(x)

    ctx.check_equal(ctx.measure(replay, warm=False), first)


@sweep(
    "flags-{phase}-{inplace}-{batch}",
    phase=["training", "eval"],
    inplace=["copy", "inplace"],
    batch=["batched", "unbatched"],
)
def dropout3d_grid(ctx, phase, inplace, batch):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    torch.manual_seed(ctx.seed)
    shape = (4, 16, 2, 3, 2) if batch == "batched" else (16, 2, 3, 2)
    x = ctx.put(np.full(shape, 3.0, dtype="float32"))
    layer = torch.nn.Dropout3d(0.5, inplace=inplace == "inplace").train(phase == "training")
    out = ctx.measure(layer, x, warm=False)
    if phase == "eval":
        ctx.check_equal(out, np.full(shape, 3.0))
        return
    ctx.check((out.data_ptr() == x.data_ptr()) == (inplace == "inplace"), "inplace aliasing")
    flat = ctx.to_numpy(out).reshape(-1, 12)  # one row per (sample, channel)
    ctx.check(bool(np.all(flat.min(axis=1) == flat.max(axis=1))), "a channel was split")
    ctx.check(set(np.unique(flat).tolist()) <= {0.0, 6.0}, f"values {np.unique(flat)}")
