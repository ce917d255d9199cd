"""torch.optim.Adamax: steps follow the documented update (infinity-norm Adam), with weight
decay, several steps, and parameters on the device."""

import numpy as np

from portbench_runner.api import case


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
