"""torch.nn.Module.zero_grad: clears accumulated gradients (to None or to zeros)."""

import numpy as np

from portbench_runner.api import case


def _model_with_grads(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    model = torch.nn.Linear(16, 4).to(ctx.device)
    model(ctx.put(np.ones((2, 16), dtype="float32"))).sum().backward()
    return model


@case("clears-gradients")
def zero_grad_default(ctx):
    model = _model_with_grads(ctx)
    ctx.measure(model.zero_grad, warm=False)
    grads = [p.grad for p in model.parameters()]
    ctx.check(
        all(g is None or float(g.abs().sum()) == 0.0 for g in grads), "gradients survived zero_grad"
    )


@case("set-to-none-false-keeps-zeros")
def zero_grad_zeros(ctx):
    model = _model_with_grads(ctx)
    ctx.measure(model.zero_grad, set_to_none=False, warm=False)
    ctx.check(
        all(p.grad is not None and float(p.grad.abs().sum()) == 0.0 for p in model.parameters()),
        "not zero tensors",
    )


@case("no-accumulation-after-zero-grad")
def zero_grad_accumulation(ctx):
    model = _model_with_grads(ctx)
    first = ctx.to_numpy(model.weight.grad).copy()
    ctx.measure(model.zero_grad, warm=False)
    model(ctx.put(np.ones((2, 16), dtype="float32"))).sum().backward()
    ctx.check_close(model.weight.grad, first, dtype="float32")
