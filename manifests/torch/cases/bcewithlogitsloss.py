"""torch.nn.BCEWithLogitsLoss: stable log-sigmoid loss; reductions, pos_weight, weight, grad."""

import numpy as np

from portbench_runner.api import case


def _reference(x, y, pos_weight=1.0, weight=1.0):
    log_sig = -np.logaddexp(0, -x)
    log_one_minus = -np.logaddexp(0, x)
    return -weight * (pos_weight * y * log_sig + (1 - y) * log_one_minus)


@case("mean", reduction="mean")
@case("sum", reduction="sum")
@case("none", reduction="none")
@case("float64-mean", reduction="mean", dtype="float64")
@case("extreme-logits-stay-finite", reduction="none", scale=200.0)
def bce_values(ctx, reduction, dtype="float32", scale=3.0):
    import torch

    x = (ctx.rng.standard_normal((32, 8)) * scale).astype(dtype)
    y = (ctx.rng.random((32, 8)) > 0.5).astype(dtype)
    loss = torch.nn.BCEWithLogitsLoss(reduction=reduction)
    out = ctx.measure(loss, ctx.put(x), ctx.put(y))
    ref = _reference(x.astype("float64"), y.astype("float64"))
    expected = {"mean": ref.mean(), "sum": ref.sum(), "none": ref}[reduction]
    ctx.check_close(out, expected, rtol=1e-5, atol=1e-5)


@case("pos-weight-and-weight")
def bce_weights(ctx):
    import torch

    x = ctx.rng.standard_normal((16, 4))
    y = (ctx.rng.random((16, 4)) > 0.5).astype("float64")
    pos_weight, weight = np.array([1.0, 2.0, 3.0, 0.5]), np.array([0.5, 1.0, 1.0, 2.0])
    loss = torch.nn.BCEWithLogitsLoss(weight=ctx.put(weight), pos_weight=ctx.put(pos_weight))
    out = ctx.measure(loss, ctx.put(x), ctx.put(y))
    ctx.check_close(out, _reference(x, y, pos_weight, weight).mean(), dtype="float64")


@case("grad-is-sigmoid-minus-target")
def bce_grad(ctx):
    import torch

    x_np = ctx.rng.standard_normal(10).astype("float32")
    y_np = (ctx.rng.random(10) > 0.5).astype("float32")
    x, y = ctx.put(x_np, requires_grad=True), ctx.put(y_np)
    loss = torch.nn.BCEWithLogitsLoss(reduction="sum")

    def backward():
        x.grad = None
        loss(x, y).backward()
        return x.grad

    ctx.check_close(
        ctx.measure(backward), 1 / (1 + np.exp(-x_np.astype("float64"))) - y_np, dtype="float32"
    )
