"""torch.nn.Module.zero_grad: clears accumulated gradients (to None or to zeros)."""

import numpy as np
from _torchhelp import COMPLEX_DTYPES, FLOAT_DTYPES

from portbench_runner.api import case, sweep


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


# Parameters of every float and complex dtype: zero_grad clears to None or to zeros of the
# parameter's dtype, and the next backward gives a fresh (not accumulated) gradient.
@sweep(
    "{dtype}-{clear}-sweep",
    dtype=FLOAT_DTYPES + COMPLEX_DTYPES,
    clear=["set-to-none", "zeros"],
)
def zero_grad_dtypes(ctx, dtype, clear):
    import torch

    # Elementwise parameters only (no matmul), so only zero_grad decides the case's fate in
    # every dtype: loss = sum(weight * x + bias), x = 2.
    dt = getattr(torch, dtype)
    model = torch.nn.Module()
    model.weight = torch.nn.Parameter(torch.ones(3, 6, dtype=dt, device=ctx.device))
    model.bias = torch.nn.Parameter(torch.zeros(6, dtype=dt, device=ctx.device))
    x = ctx.put(np.full((3, 6), 2.0, dtype="float32"), dtype=dtype)

    def backward():
        out = model.weight * x + model.bias
        (out.real if out.is_complex() else out).sum().backward()

    backward()
    backward()  # accumulated twice
    ctx.measure(model.zero_grad, set_to_none=clear == "set-to-none", warm=False)
    for name, p in model.named_parameters():
        if clear == "set-to-none":
            ctx.check(p.grad is None, f"{name}.grad survived set_to_none=True")
        else:
            ctx.check(p.grad is not None and p.grad.dtype == dt, f"{name}.grad is not {dtype}")
            ctx.check_equal(ctx.to_numpy(p.grad).astype("complex128"), np.zeros(p.shape))
    backward()
    # d(sum(W * x + b))/dW = x = 2 everywhere; for a complex weight and a real loss autograd
    # returns the conjugate, which is 2 as well.
    ctx.check_equal(ctx.to_numpy(model.weight.grad).astype("complex128"), np.full((3, 6), 2.0))


@sweep(
    "{form}-form",
    form=[
        "nested-modules",
        "frozen-untouched",
        "detaches-graph-grad",
        "shared-parameter",
        "before-any-backward",
        "default-mode",
        "buffers-untouched",
    ],
)
def zero_grad_forms(ctx, form):
    import torch

    torch.manual_seed(ctx.seed)
    model = torch.nn.Sequential(
        torch.nn.Linear(4, 4), torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.Tanh())
    ).to(ctx.device)
    x = ctx.put(np.ones((3, 4), dtype="float32"))
    if form == "before-any-backward":
        ctx.measure(model.zero_grad, warm=False)
        ctx.check(all(p.grad is None for p in model.parameters()), "grads appeared from nothing")
        return
    if form == "frozen-untouched":
        model[0].bias.requires_grad_(False)
    if form == "shared-parameter":
        # One Linear reachable under two names: its gradient is accumulated and cleared once.
        shared = torch.nn.Linear(4, 4).to(ctx.device)
        model = torch.nn.Module()
        model.a, model.b = shared, shared
        (shared(x).sum() + (shared(x) ** 2).sum()).backward()
        ctx.measure(model.zero_grad, set_to_none=False, warm=False)
        ctx.check_equal(ctx.to_numpy(shared.weight.grad), np.zeros((4, 4), dtype="float32"))
        return
    if form == "detaches-graph-grad":
        # backward(create_graph=True) stores gradients that carry a graph (double backward).
        model(x).sum().backward(create_graph=True)
        ctx.check(model[0].weight.grad.grad_fn is not None, "the gradient has no graph", "other")
        ctx.measure(model.zero_grad, set_to_none=False, warm=False)
        ctx.check(
            all(p.grad.grad_fn is None and not p.grad.requires_grad for p in model.parameters()),
            "zero_grad(set_to_none=False) kept the gradients' graph",
        )
        return
    if form == "buffers-untouched":
        model.register_buffer("count", torch.full((2,), 3.0, device=ctx.device))
    model(x).sum().backward()
    ctx.measure(model.zero_grad, warm=False)
    if form == "default-mode":
        # The default became set_to_none=True in torch 2.0; 1.x zeroed in place.
        want_none = ctx.version_at_least("2.0")
        ok = all((p.grad is None) == want_none for p in model.parameters())
        ctx.check(ok, f"zero_grad() default did not clear to {'None' if want_none else 'zeros'}")
    elif form == "frozen-untouched":
        ctx.check(model[0].bias.grad is None, "a frozen parameter gained a gradient")
    elif form == "buffers-untouched":
        ctx.check_equal(ctx.to_numpy(model.count), [3.0, 3.0])
    cleared = all(p.grad is None or float(p.grad.abs().sum()) == 0 for p in model.parameters())
    ctx.check(cleared, f"{form}: a gradient survived zero_grad")


# The study's kinds of paths (issue #33): the full grid of set_to_none x what the gradients
# hold before the call (nothing yet, an accumulated sum, a gradient with its own graph from
# backward(create_graph=True)), and a second-order gradient taken after zero_grad (the
# cleared first-order graph must not leak into it).
@sweep(
    "flags-{clear}-{held}",
    clear=["set-to-none", "zeros"],
    held=["nothing", "accumulated", "with-graph"],
)
def zero_grad_grid(ctx, clear, held):
    import torch

    torch.manual_seed(ctx.seed)
    model = torch.nn.Linear(4, 3).to(device=ctx.device, dtype=torch.float64)
    x = ctx.put(ctx.rng.standard_normal((5, 4)))
    if held == "accumulated":
        for _ in range(2):
            model(x).sum().backward()
    elif held == "with-graph":
        (model(x) ** 2).sum().backward(create_graph=True)
    ctx.measure(model.zero_grad, set_to_none=clear == "set-to-none", warm=False)
    for name, p in model.named_parameters():
        if clear == "set-to-none" or held == "nothing":
            ctx.check(p.grad is None, f"{name}.grad is {p.grad}, not None")
        else:
            ctx.check(p.grad is not None and not p.grad.requires_grad, f"{name}.grad kept a graph")
            ctx.check_equal(p.grad, np.zeros(tuple(p.shape)), what=name)
    # The next backward starts from nothing: d(sum(W x + b))/db = 5 per output.
    model(x).sum().backward()
    ctx.check_equal(model.bias.grad, np.full(3, 5.0), what="bias grad after zero_grad")


@case("grad2-after-zero-grad")
def zero_grad_second_order(ctx):
    import torch

    w = torch.nn.Parameter(ctx.put(ctx.rng.standard_normal(4)))
    module = torch.nn.Module()
    module.w = w
    (w**3).sum().backward(create_graph=True)
    module.zero_grad(set_to_none=True)

    def second():
        (g,) = torch.autograd.grad((w**3).sum(), w, create_graph=True)
        g.sum().backward()  # accumulates d2/dw2 = 6w into the cleared .grad
        return w.grad

    ctx.check_close(ctx.measure(second, warm=False), 6 * ctx.to_numpy(w.detach()), dtype="float64")
