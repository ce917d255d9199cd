"""torch.optim.Rprop: sign-based steps whose sizes grow and shrink as documented."""

import numpy as np

from portbench_runner.api import case


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
