"""torch.optim.Adamax: steps follow the documented update (infinity-norm Adam), with weight
decay, several steps, and parameters on the device."""

import numpy as np
from _torchhelp import FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


def _reference(p, grads, lr, betas, eps, weight_decay):
    m = np.zeros_like(p)
    u = np.zeros_like(p)
    for t, g in enumerate(grads, start=1):
        g = g + weight_decay * p
        m = betas[0] * m + (1 - betas[0]) * g
        u = np.maximum(betas[1] * u, np.abs(g) + eps)
        p = p - lr / (1 - betas[0] ** t) * m / u
    return p


@case("one-step", steps=1)
@case("five-steps", steps=5)
@case("weight-decay", steps=3, weight_decay=0.1)
@case("float64", steps=2, dtype="float64")
def adamax_steps(ctx, steps, weight_decay=0.0, dtype="float32"):
    import torch

    p0 = ctx.rng.standard_normal(32).astype(dtype)
    grads = [ctx.rng.standard_normal(32).astype(dtype) for _ in range(steps)]
    param = torch.nn.Parameter(ctx.put(p0))
    opt = torch.optim.Adamax(
        [param], lr=0.01, betas=(0.9, 0.999), eps=1e-8, weight_decay=weight_decay
    )

    def run():
        for g in grads:
            param.grad = ctx.put(g)
            opt.step()
        return param

    out = ctx.measure(run, warm=False)
    expected = _reference(
        p0.astype("float64"),
        [g.astype("float64") for g in grads],
        0.01,
        (0.9, 0.999),
        1e-8,
        weight_decay,
    )
    ctx.check_close(out.detach(), expected, rtol=1e-5, atol=1e-6)


def _reference_full(p, grads, lr, betas, eps, weight_decay, maximize):
    m = np.zeros_like(p)
    u = np.zeros_like(p)
    for t, g in enumerate(grads, start=1):
        g = -g if maximize else g
        g = g + weight_decay * p
        m = betas[0] * m + (1 - betas[0]) * g
        u = np.maximum(betas[1] * u, np.abs(g) + eps)
        p = p - lr / (1 - betas[0] ** t) * m / u
    return p


# Parameters of each float dtype, with each option users turn on: weight decay, maximize,
# the multi-tensor (foreach) implementation; three steps against the float64 update rule.
@sweep(
    "{dtype}-{variant}-sweep",
    dtype=HALF_FLOATS + FULL_FLOATS,
    variant=["plain", "weight-decay", "maximize", "foreach"],
)
def adamax_dtypes(ctx, dtype, variant):
    import torch
    from _torchhelp import placed

    if variant == "maximize" and not ctx.version_at_least("1.11"):
        ctx.skip(f"Adamax(maximize=) arrived in torch 1.11 (this is {ctx.version})")
    opts = {"weight-decay": {"weight_decay": 0.1}, "maximize": {"maximize": True}}.get(variant, {})
    if variant == "foreach":
        opts = {"foreach": True}
    p0, p0_h = placed(ctx, ctx.rng.standard_normal(48).astype("float32"), dtype)
    grads = [placed(ctx, ctx.rng.standard_normal(48).astype("float32"), dtype) for _ in range(3)]
    # Two parameter tensors, so foreach really groups several.
    p1, p1_h = placed(ctx, ctx.rng.standard_normal(16).astype("float32"), dtype)
    params = [torch.nn.Parameter(p0.clone()), torch.nn.Parameter(p1.clone())]
    opt = torch.optim.Adamax(params, lr=0.01, betas=(0.9, 0.999), eps=1e-8, **opts)

    def run():
        for g, _ in grads:
            params[0].grad = g.clone()
            params[1].grad = g[:16].clone()
            opt.step()
        return params[0].detach(), params[1].detach()

    out0, out1 = ctx.measure(run, warm=False)
    wd, mx = opts.get("weight_decay", 0.0), opts.get("maximize", False)
    gs = [g_h for _, g_h in grads]
    expected0 = _reference_full(p0_h, gs, 0.01, (0.9, 0.999), 1e-8, wd, mx)
    expected1 = _reference_full(p1_h, [g[:16] for g in gs], 0.01, (0.9, 0.999), 1e-8, wd, mx)
    # Each step rounds the parameter to the dtype: half widths drift by a few roundings.
    tol = {"float16": 5e-3, "bfloat16": 4e-2, "float32": 1e-5, "float64": 1e-10}[dtype]
    ctx.check_close(out0, expected0, rtol=tol, atol=tol, what="first parameter")
    ctx.check_close(out1, expected1, rtol=tol, atol=tol, what="second parameter")


@sweep(
    "{form}-sweep",
    form=[
        "compiled-step",
        "state-dict-resume",
        "complex-params",
        "zero-grad-skips",
        "lr-per-group",
    ],
)
def adamax_forms(ctx, form):
    import torch

    p0 = ctx.rng.standard_normal(24)
    grads = [ctx.rng.standard_normal(24) for _ in range(4)]
    ref = _reference_full(p0, grads, 0.01, (0.9, 0.999), 1e-8, 0.0, False)
    param = torch.nn.Parameter(ctx.put(p0))
    opt = torch.optim.Adamax([param], lr=0.01)
    if form == "compiled-step":
        step = ctx.compiled(opt.step)  # the documented way to compile an optimizer step

        def run():
            for g in grads:
                param.grad = ctx.put(g)
                step()
            return param.detach()

        ctx.check_close(ctx.measure(run, warm=False), ref, dtype="float64", kind="linalg")
    elif form == "state-dict-resume":
        # Two steps, save, a fresh optimizer loads the state and takes the last two.
        for g in grads[:2]:
            param.grad = ctx.put(g)
            opt.step()
        fresh = torch.optim.Adamax([param], lr=0.01)
        fresh.load_state_dict(opt.state_dict())

        def run():
            for g in grads[2:]:
                param.grad = ctx.put(g)
                fresh.step()
            return param.detach()

        ctx.check_close(ctx.measure(run, warm=False), ref, dtype="float64", kind="linalg")
    elif form == "complex-params":
        if not ctx.version_at_least("2.0"):
            ctx.skip(
                f"complex parameters came to Adamax in the 2.x line; {ctx.version} refuses them "
                '("max_values_cpu" not implemented for ComplexDouble)'
            )
        # A complex parameter is updated as its real and imaginary parts side by side.
        z0 = p0[:12] + 1j * p0[12:]
        zp = torch.nn.Parameter(ctx.put(z0))
        zopt = torch.optim.Adamax([zp], lr=0.01)

        def run():
            for g in grads:
                zp.grad = ctx.put(g[:12] + 1j * g[12:])
                zopt.step()
            return zp.detach()

        pairs = np.stack([p0[:12], p0[12:]], axis=-1)
        gpairs = [np.stack([g[:12], g[12:]], axis=-1) for g in grads]
        r = _reference_full(pairs, gpairs, 0.01, (0.9, 0.999), 1e-8, 0.0, False)
        ctx.check_close(
            ctx.measure(run, warm=False),
            r[..., 0] + 1j * r[..., 1],
            dtype="complex128",
            kind="linalg",
        )
    elif form == "zero-grad-skips":
        # A parameter whose grad is None (after zero_grad) is left alone.
        param.grad = ctx.put(grads[0])
        opt.step()
        before = param.detach().clone()
        opt.zero_grad(set_to_none=True)  # the default before torch 2.0 was zeros
        ctx.measure(opt.step, warm=False)
        ctx.check_equal(param.detach(), ctx.to_numpy(before))
    else:
        q = torch.nn.Parameter(ctx.put(p0.copy()))
        two = torch.optim.Adamax([{"params": [param]}, {"params": [q], "lr": 0.001}], lr=0.01)

        def run():
            for g in grads:
                param.grad, q.grad = ctx.put(g), ctx.put(g)
                two.step()
            return param.detach(), q.detach()

        a, b = ctx.measure(run, warm=False)
        ref_small = _reference_full(p0, grads, 0.001, (0.9, 0.999), 1e-8, 0.0, False)
        ctx.check_close(a, ref, dtype="float64", kind="linalg", what="group lr 0.01")
        ctx.check_close(b, ref_small, dtype="float64", kind="linalg", what="group lr 0.001")


# The study's kinds of paths (issue #33). The documented refusals of bad arguments, each
# with its class and message: the constructor checks every hyperparameter, a sparse
# gradient is refused at the step, and a state dict from another group layout at the load.
@sweep(
    "raises-{arg}",
    arg=[
        "lr-negative",
        "beta-one",
        "eps-negative",
        "weight-decay-negative",
        "sparse-grad",
        "groups-mismatch",
    ],
)
def adamax_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    param = torch.nn.Parameter(ctx.put(np.zeros(3)))
    if arg == "sparse-grad":
        opt = torch.optim.Adamax([param])
        param.grad = ctx.put(np.eye(3)[0]).to_sparse()
        refusal(ctx, opt.step, RuntimeError, "does not support sparse gradients", warm=False)
        return
    if arg == "groups-mismatch":
        other = torch.nn.Parameter(ctx.put(np.zeros(1)))
        two = torch.optim.Adamax([{"params": [param]}, {"params": [other]}])
        one = torch.optim.Adamax([param])
        refusal(
            ctx,
            lambda: one.load_state_dict(two.state_dict()),
            ValueError,
            "different number of parameter groups",
        )
        return
    bad = {
        "lr-negative": ({"lr": -1.0}, "Invalid learning rate"),
        "beta-one": ({"betas": (1.0, 0.999)}, "Invalid beta parameter at index 0"),
        "eps-negative": ({"eps": -1e-8}, "Invalid epsilon value"),
        "weight-decay-negative": ({"weight_decay": -0.1}, "Invalid weight_decay value"),
    }[arg]
    refusal(ctx, lambda: torch.optim.Adamax([param], **bad[0]), ValueError, bad[1])


# A checkpoint as users write one: two steps, parameter and optimizer state through
# torch.save/torch.load, a fresh parameter and optimizer load them, two more steps: the
# same as four uninterrupted steps.
@case("checkpoint-saved-checkpoint")
def adamax_checkpoint(ctx):
    import torch
    from _torchhelp import saved

    p0 = ctx.rng.standard_normal(24)
    grads = [ctx.rng.standard_normal(24) for _ in range(4)]
    param = torch.nn.Parameter(ctx.put(p0))
    opt = torch.optim.Adamax([param], lr=0.02, weight_decay=0.05)
    for g in grads[:2]:
        param.grad = ctx.put(g)
        opt.step()
    checkpoint = saved({"param": param.detach(), "opt": opt.state_dict()})
    fresh = torch.nn.Parameter(ctx.put(np.zeros(24)))
    with torch.no_grad():
        fresh.copy_(checkpoint["param"])
    resumed = torch.optim.Adamax([fresh], lr=0.5)  # lr comes back from the checkpoint
    resumed.load_state_dict(checkpoint["opt"])

    def run():
        for g in grads[2:]:
            fresh.grad = ctx.put(g)
            resumed.step()
        return fresh.detach()

    ref = _reference_full(p0, grads, 0.02, (0.9, 0.999), 1e-8, 0.05, False)
    ctx.check_close(ctx.measure(run, warm=False), ref, dtype="float64", kind="linalg")


# The full grid of the update's options (weight decay x maximize x foreach), in float64
# against the update rule.
@sweep(
    "flags-{decay}-{direction}-{impl}",
    decay=["no-decay", "decay"],
    direction=["minimize", "maximize"],
    impl=["for-loop", "foreach"],
)
def adamax_grid(ctx, decay, direction, impl):
    import torch

    if direction == "maximize" and not ctx.version_at_least("1.11"):
        ctx.skip(f"Adamax(maximize=) arrived in torch 1.11 (this is {ctx.version})")
    wd, mx = (0.1 if decay == "decay" else 0.0), direction == "maximize"
    p0 = ctx.rng.standard_normal(20)
    grads = [ctx.rng.standard_normal(20) for _ in range(3)]
    params = [torch.nn.Parameter(ctx.put(p0[:12])), torch.nn.Parameter(ctx.put(p0[12:]))]
    opt = torch.optim.Adamax(
        params, lr=0.01, weight_decay=wd, maximize=mx, foreach=impl == "foreach"
    )

    def run():
        for g in grads:
            params[0].grad, params[1].grad = ctx.put(g[:12]), ctx.put(g[12:])
            opt.step()
        return torch.cat([p.detach() for p in params])

    ref = _reference_full(p0, grads, 0.01, (0.9, 0.999), 1e-8, wd, mx)
    ctx.check_close(ctx.measure(run, warm=False), ref, dtype="float64", kind="linalg")
