"""torch.nn.Linear: forward against x @ W.T + b, no-bias, batched shapes, backward, dtypes."""

import numpy as np

from portbench_runner.api import case


def _layer(ctx, torch, dtype, bias=True):
    layer = torch.nn.Linear(64, 32, bias=bias)
    return layer.to(device=ctx.device, dtype=getattr(torch, dtype))


@case("float32-forward", dtype="float32")
@case("float64-forward", dtype="float64")
@case("bfloat16-forward", dtype="bfloat16")
@case("float32-no-bias", dtype="float32", bias=False)
@case("float32-batched-3d", dtype="float32", shape=(4, 16, 64))
def linear_forward(ctx, dtype, bias=True, shape=(128, 64)):
    import torch

    torch.manual_seed(ctx.seed)
    layer = _layer(ctx, torch, dtype, bias)
    x = ctx.rng.standard_normal(shape).astype("float32")
    with torch.no_grad():
        out = ctx.measure(layer, ctx.put(x, dtype=dtype))
    weight = ctx.to_numpy(layer.weight).astype("float64")
    expected = ctx.to_numpy(ctx.put(x, dtype=dtype)).astype("float64") @ weight.T
    if bias:
        expected = expected + ctx.to_numpy(layer.bias).astype("float64")
    rtol = {"float32": 1e-4, "float64": 1e-10, "bfloat16": 3e-2}[dtype]
    ctx.check_close(out, expected, rtol=rtol, atol=rtol * 10)


@case("float32-backward")
def linear_backward(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    layer = _layer(ctx, torch, "float32")
    x = ctx.rng.standard_normal((16, 64)).astype("float32")
    inputs = ctx.put(x)

    def step():
        layer.zero_grad()
        layer(inputs).sum().backward()
        return layer.weight.grad, layer.bias.grad

    grad_w, grad_b = ctx.measure(step)
    # d(sum(x W^T + b))/dW = column sums of x broadcast over outputs; d/db = batch size.
    ctx.check_close(grad_w, np.tile(x.astype("float64").sum(axis=0), (32, 1)), rtol=1e-4, atol=1e-4)
    ctx.check_close(grad_b, np.full(32, 16.0), dtype="float32")


@case("empty-batch")
def linear_empty(ctx):
    import torch

    layer = _layer(ctx, torch, "float32")
    with torch.no_grad():
        out = ctx.measure(layer, ctx.put(np.zeros((0, 64), dtype="float32")))
    ctx.check_equal(np.array(out.shape), np.array([0, 32]))
