"""torch.nn.functional.dropout: zeroes elements with probability p and scales survivors,
identity when not training, p=0 and p=1 edges, autograd mask."""

import numpy as np

from portbench_runner.api import case


@case("p-half", p=0.5)
@case("p-point-1", p=0.1)
@case("float64", p=0.3, dtype="float64")
@case("large", p=0.5, n=1_000_000)
def dropout_train(ctx, p, dtype="float32", n=100_000):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    import torch.nn.functional as F

    torch.manual_seed(ctx.seed)
    out = ctx.to_numpy(ctx.measure(F.dropout, ctx.put(np.ones(n, dtype=dtype)), p, True))
    kept = out != 0
    ctx.check_close(out[kept], np.full(kept.sum(), 1 / (1 - p)), dtype=dtype)
    ctx.check(abs(1 - kept.mean() - p) < 0.02, f"dropped share {1 - kept.mean():.3f}, expected {p}")


@case("not-training-is-identity")
def dropout_eval(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch.nn.functional as F

    x = ctx.rng.standard_normal(100).astype("float32")
    ctx.check_equal(ctx.measure(F.dropout, ctx.put(x), 0.5, False), x)


@case("edges-p0-p1")
def dropout_edges(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch.nn.functional as F

    x = ctx.put(np.ones(10, dtype="float32"))
    out = ctx.measure(lambda: (F.dropout(x, 0.0, True), F.dropout(x, 1.0, True)))
    ctx.check_equal(out[0], np.ones(10))
    ctx.check_equal(out[1], np.zeros(10))


@case("grad-follows-mask")
def dropout_grad(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    import torch.nn.functional as F

    torch.manual_seed(ctx.seed)
    x = ctx.put(np.ones(1000, dtype="float32"), requires_grad=True)

    def backward():
        x.grad = None
        y = F.dropout(x, 0.5, True)
        y.sum().backward()
        return y, x.grad

    y, grad = ctx.measure(backward, warm=False)
    ctx.check_close(grad, ctx.to_numpy(y.detach()), dtype="float32")
