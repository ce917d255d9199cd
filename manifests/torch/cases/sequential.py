"""torch.nn.Sequential: composes modules in order; indexing, append, OrderedDict names, grads."""

import collections

import numpy as np

from portbench_runner.api import case


@case("linear-relu-linear")
@case("linear-relu-linear-float64", dtype="float64")
def sequential_forward(ctx, dtype="float32"):
    import torch

    torch.manual_seed(ctx.seed)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).to(
        device=ctx.device, dtype=getattr(torch, dtype)
    )
    x = ctx.rng.standard_normal((32, 8)).astype(dtype)
    with torch.no_grad():
        out = ctx.measure(model, ctx.put(x))
    w1, b1, w2, b2 = (ctx.to_numpy(p).astype("float64") for p in model.parameters())
    expected = np.maximum(x.astype("float64") @ w1.T + b1, 0) @ w2.T + b2
    ctx.check_close(out, expected, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)


@case("ordered-dict-and-indexing")
def sequential_names(ctx):
    import torch

    model = ctx.measure(
        torch.nn.Sequential,
        collections.OrderedDict([("scale", torch.nn.Identity()), ("act", torch.nn.Tanh())]),
        warm=False,
    )
    ctx.check(
        isinstance(model.act, torch.nn.Tanh)
        and isinstance(model[0], torch.nn.Identity)
        and len(model) == 2,
        "names or order lost",
    )


@case("deep-stack")
def sequential_deep(ctx):
    import torch

    model = torch.nn.Sequential(*[torch.nn.Linear(64, 64, bias=False) for _ in range(50)]).to(
        ctx.device
    )
    with torch.no_grad():
        for layer in model:
            layer.weight.copy_(torch.eye(64))
        out = ctx.measure(model, ctx.put(np.arange(64, dtype="float32").reshape(1, 64)))
    ctx.check_close(out, np.arange(64).reshape(1, 64), dtype="float32")
