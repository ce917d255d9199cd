"""torch.nn.functional.group_norm: per-group normalization, affine weight/bias, eps, autograd."""

import numpy as np

from portbench_runner.api import case


def _reference(x, groups, weight=None, bias=None, eps=1e-5):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    norm = (g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + eps)
    out = norm.reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape) + bias.reshape(shape)
    return out


@case("two-groups", groups=2)
@case("one-group-is-layer-norm", groups=1)
@case("groups-equal-channels", groups=8)
@case("float64", groups=4, dtype="float64")
@case("large", groups=8, shape=(16, 64, 32, 32))
def group_norm_values(ctx, groups, dtype="float32", shape=(4, 8, 5, 5)):
    import torch.nn.functional as F

    x = (ctx.rng.standard_normal(shape) * 3 + 1).astype(dtype)
    out = ctx.measure(F.group_norm, ctx.put(x), groups)
    ctx.check_close(out, _reference(x.astype("float64"), groups), rtol=1e-4, atol=1e-4)


@case("affine")
def group_norm_affine(ctx):
    import torch.nn.functional as F

    x = ctx.rng.standard_normal((2, 6, 3)).astype("float64")
    w, b = ctx.rng.standard_normal(6), ctx.rng.standard_normal(6)
    out = ctx.measure(F.group_norm, ctx.put(x), 3, ctx.put(w), ctx.put(b))
    ctx.check_close(out, _reference(x, 3, w, b), dtype="float64", atol=1e-9)


@case("grad-sums-to-zero-per-group")
def group_norm_grad(ctx):
    import torch.nn.functional as F

    x = ctx.put(ctx.rng.standard_normal((2, 4, 6)).astype("float64"), requires_grad=True)
    target = ctx.put(ctx.rng.standard_normal((2, 4, 6)))

    def backward():
        x.grad = None
        (F.group_norm(x, 2) * target).sum().backward()
        return x.grad

    grad = ctx.to_numpy(ctx.measure(backward)).reshape(2, 2, -1)
    ctx.check_close(grad.sum(axis=2), np.zeros((2, 2)), dtype="float64", atol=1e-9)
