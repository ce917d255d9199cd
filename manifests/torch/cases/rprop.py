"""torch.optim.Rprop: sign-based steps whose sizes grow and shrink as documented."""

import numpy as np
from _torchhelp import param_values

from portbench_runner.api import case, sweep


def _reference(p, grads, lr, etas, step_sizes):
    step = np.full_like(p, lr)
    prev = np.zeros_like(p)
    for g in grads:
        sign = np.sign(g * prev)
        step = np.where(sign > 0, np.minimum(step * etas[1], step_sizes[1]), step)
        step = np.where(sign < 0, np.maximum(step * etas[0], step_sizes[0]), step)
        g = np.where(sign < 0, 0.0, g)
        p = p - np.sign(g) * step
        prev = g
    return p


@case("one-step", steps=1)
@case("four-steps-mixed-signs", steps=4)
@case("float64", steps=3, dtype="float64")
def rprop_steps(ctx, steps, dtype="float32"):
    import torch

    p0 = ctx.rng.standard_normal(16).astype(dtype)
    grads = [ctx.rng.standard_normal(16).astype(dtype) for _ in range(steps)]
    param = torch.nn.Parameter(ctx.put(p0))
    opt = torch.optim.Rprop([param], lr=0.01, etas=(0.5, 1.2), step_sizes=(1e-6, 50))

    def run():
        for g in grads:
            param.grad = ctx.put(g)
            opt.step()
        return param

    out = ctx.measure(run, warm=False)
    expected = _reference(
        p0.astype("float64"), [g.astype("float64") for g in grads], 0.01, (0.5, 1.2), (1e-6, 50)
    )
    ctx.check_close(out.detach(), expected, rtol=1e-5, atol=1e-6)


@case("minimizes-quadratic")
def rprop_minimizes(ctx):
    import torch

    param = torch.nn.Parameter(ctx.put(np.array([5.0, -3.0], dtype="float32")))
    opt = torch.optim.Rprop([param], lr=0.1)

    def run():
        for _ in range(100):
            opt.zero_grad()
            (param**2).sum().backward()
            opt.step()
        return param

    out = ctx.measure(run, warm=False)
    ctx.check(
        float(out.detach().abs().max()) < 1e-2, f"Rprop ended at {ctx.to_numpy(out.detach())}"
    )


def _has_option(name):
    import inspect

    import torch

    return name in inspect.signature(torch.optim.Rprop).parameters


# Parameters of float32, float64, bfloat16 and float16 (and complex64, whose real and
# imaginary parts step independently), through the for-loop and foreach implementations and
# with maximize; three steps against the float64 update rule.
@sweep(
    "{dtype}-{variant}-sweep",
    dtype=["float16", "bfloat16", "float32", "float64", "complex64"],
    variant=["for-loop", "foreach", "maximize"],
)
def rprop_dtypes(ctx, dtype, variant):
    import torch

    option = {"for-loop": ("foreach", False), "foreach": ("foreach", True)}
    option = option.get(variant, ("maximize", True))
    if not _has_option(option[0]):
        ctx.skip(f"Rprop({option[0]}=) is absent in torch {ctx.version}")
    cplx = dtype.startswith("complex")
    if cplx and not ctx.version_at_least("2.0"):
        # A feature of later releases, as for Adamax and LBFGS (a missing kernel of one dtype
        # is a failure; a feature not yet there is a skip that says so).
        ctx.skip(
            f"complex parameters came to Rprop in the 2.x line; {ctx.version} refuses them "
            "(torch.sign of a complex tensor)"
        )
    real_dtype = "float32" if cplx else dtype
    shape = (2, 12) if cplx else (24,)  # complex: real and imaginary parts as a pair
    p0 = param_values(real_dtype, ctx.rng.standard_normal(shape))
    grads = [param_values(real_dtype, ctx.rng.standard_normal(shape)) for _ in range(3)]

    def as_param(v):
        t = ctx.put(v.astype("float32"), dtype=real_dtype)
        return torch.complex(t[0], t[1]) if cplx else t

    param = torch.nn.Parameter(as_param(p0))
    opt = torch.optim.Rprop([param], lr=0.01, **{option[0]: option[1]})
    device_grads = [as_param(g) for g in grads]

    def run():
        for g in device_grads:
            param.grad = g
            opt.step()
        return param

    out = ctx.measure(run, warm=False)
    sign = -1.0 if variant == "maximize" else 1.0
    expected = _reference(p0, [sign * g for g in grads], 0.01, (0.5, 1.2), (1e-6, 50))
    got = out.detach()
    got = torch.stack([got.real, got.imag]) if cplx else got
    # Each step moves by lr * 1.2^k (k <= 2): in the half widths a step is a few ulps of p.
    r = {"float16": 4e-3, "bfloat16": 3e-2}.get(real_dtype, 1e-5)
    ctx.check_close(got, expected, rtol=r, atol=r)


@sweep(
    "{form}-form",
    form=["step-size-limits", "param-groups", "state-dict-resume", "sparse-grad-refused"],
)
def rprop_forms(ctx, form):
    import torch

    p0 = ctx.rng.standard_normal(8)
    grads = [ctx.rng.standard_normal(8) for _ in range(6)]
    if form == "step-size-limits":
        # A constant gradient sign grows the step by etas[1] until it hits step_sizes[1].
        param = torch.nn.Parameter(ctx.put(p0))
        opt = torch.optim.Rprop([param], lr=0.1, etas=(0.5, 3.0), step_sizes=(1e-3, 0.5))
        same = [np.abs(grads[0])] * 4

        def run():
            for g in same:
                param.grad = ctx.put(g)
                opt.step()
            return param

        out = ctx.measure(run, warm=False)
        # steps 0.1, 0.3, 0.5 (capped from 0.9), 0.5: total 1.4 downhill.
        ctx.check_close(out.detach(), p0 - 1.4, dtype="float64")
    elif form == "param-groups":
        a, b = torch.nn.Parameter(ctx.put(p0[:4])), torch.nn.Parameter(ctx.put(p0[4:]))
        opt = torch.optim.Rprop([{"params": [a]}, {"params": [b], "lr": 0.1}], lr=0.01)

        def run():
            for g in grads[:3]:
                a.grad, b.grad = ctx.put(g[:4]), ctx.put(g[4:])
                opt.step()
            return torch.cat([a, b])

        out = ctx.measure(run, warm=False)
        want_a = _reference(p0[:4], [g[:4] for g in grads[:3]], 0.01, (0.5, 1.2), (1e-6, 50))
        want_b = _reference(p0[4:], [g[4:] for g in grads[:3]], 0.1, (0.5, 1.2), (1e-6, 50))
        ctx.check_close(out.detach(), np.concatenate([want_a, want_b]), dtype="float64")
    elif form == "state-dict-resume":
        # Three steps, a save and a load into a fresh optimizer, three more steps: the same as
        # six uninterrupted steps (the per-element step sizes and previous signs are saved).
        param = torch.nn.Parameter(ctx.put(p0))
        opt = torch.optim.Rprop([param], lr=0.01)
        for g in grads[:3]:
            param.grad = ctx.put(g)
            opt.step()
        resumed = torch.optim.Rprop([param], lr=0.01)
        resumed.load_state_dict(opt.state_dict())

        def run():
            for g in grads[3:]:
                param.grad = ctx.put(g)
                resumed.step()
            return param

        out = ctx.measure(run, warm=False)
        ctx.check_close(
            out.detach(), _reference(p0, grads, 0.01, (0.5, 1.2), (1e-6, 50)), dtype="float64"
        )
    else:
        param = torch.nn.Parameter(ctx.put(p0))
        opt = torch.optim.Rprop([param])
        param.grad = ctx.put(np.eye(8)[0]).to_sparse()

        def attempt():
            try:
                opt.step()
            except RuntimeError:
                return True
            return False

        ctx.check(ctx.measure(attempt, warm=False), "Rprop stepped on a sparse gradient", "other")


# The study's kinds of paths (issue #33): the refusals with class and message (a negative
# learning rate, etas in the wrong order, a sparse gradient), a checkpoint through
# torch.save/torch.load that resumes the update, and the full grid of foreach x maximize.
@sweep("raises-{arg}", arg=["lr-negative", "etas", "sparse-grad"])
def rprop_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    param = torch.nn.Parameter(ctx.put(np.zeros(3)))
    if arg == "sparse-grad":
        opt = torch.optim.Rprop([param])
        param.grad = ctx.put(np.eye(3)[0]).to_sparse()
        refusal(ctx, opt.step, RuntimeError, "does not support sparse gradients", warm=False)
        return
    kwargs, fragment = {
        "lr-negative": ({"lr": -1.0}, "Invalid learning rate"),
        "etas": ({"etas": (1.5, 1.2)}, "Invalid eta values"),
    }[arg]
    refusal(ctx, lambda: torch.optim.Rprop([param], **kwargs), ValueError, fragment)


@case("checkpoint-saved-checkpoint")
def rprop_checkpoint(ctx):
    import torch
    from _torchhelp import saved

    p0 = ctx.rng.standard_normal(10)
    grads = [ctx.rng.standard_normal(10) for _ in range(6)]
    param = torch.nn.Parameter(ctx.put(p0))
    opt = torch.optim.Rprop([param], lr=0.02)
    for g in grads[:3]:
        param.grad = ctx.put(g)
        opt.step()
    checkpoint = saved({"param": param.detach(), "opt": opt.state_dict()})
    fresh = torch.nn.Parameter(checkpoint["param"].clone())
    resumed = torch.optim.Rprop([fresh], lr=0.5)  # lr and step sizes come back from the state
    resumed.load_state_dict(checkpoint["opt"])

    def run():
        for g in grads[3:]:
            fresh.grad = ctx.put(g)
            resumed.step()
        return fresh.detach()

    ref = _reference(p0, grads, 0.02, (0.5, 1.2), (1e-6, 50))
    ctx.check_close(ctx.measure(run, warm=False), ref, dtype="float64")


@sweep("flags-{impl}-{direction}", impl=["for-loop", "foreach"], direction=["minimize", "maximize"])
def rprop_grid(ctx, impl, direction):
    import torch

    for option in ("foreach", "maximize"):
        if not _has_option(option):
            ctx.skip(f"Rprop({option}=) is absent in torch {ctx.version}")
    p0 = ctx.rng.standard_normal(12)
    grads = [ctx.rng.standard_normal(12) for _ in range(4)]
    params = [torch.nn.Parameter(ctx.put(p0[:7])), torch.nn.Parameter(ctx.put(p0[7:]))]
    opt = torch.optim.Rprop(
        params, lr=0.01, foreach=impl == "foreach", maximize=direction == "maximize"
    )

    def run():
        for g in grads:
            params[0].grad, params[1].grad = ctx.put(g[:7]), ctx.put(g[7:])
            opt.step()
        return torch.cat([p.detach() for p in params])

    sign = -1.0 if direction == "maximize" else 1.0
    ref = _reference(p0, [sign * g for g in grads], 0.01, (0.5, 1.2), (1e-6, 50))
    ctx.check_close(ctx.measure(run, warm=False), ref, dtype="float64")
