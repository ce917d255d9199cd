"""torch.nn.AdaptiveAvgPool3d: averages over adaptive bins to a target size (divisible and
not), global pooling, batches, autograd."""

import numpy as np

from portbench_runner.api import case


def _reference(x, out_size):
    """Adaptive bins: start = floor(i * L / O), end = ceil((i + 1) * L / O), per axis."""
    d, h, w = x.shape[-3:]
    od, oh, ow = out_size
    out = np.zeros((*x.shape[:-3], od, oh, ow))
    for i in range(od):
        for j in range(oh):
            for k in range(ow):
                sl = x[
                    ...,
                    i * d // od : -(-(i + 1) * d // od),
                    j * h // oh : -(-(j + 1) * h // oh),
                    k * w // ow : -(-(k + 1) * w // ow),
                ]
                out[..., i, j, k] = sl.mean(axis=(-3, -2, -1))
    return out


@case("divisible", shape=(2, 3, 8, 8, 8), out=(2, 2, 2))
@case("non-divisible", shape=(1, 2, 7, 5, 9), out=(3, 2, 4))
@case("global", shape=(2, 4, 6, 6, 6), out=(1, 1, 1))
@case("float64", shape=(1, 1, 5, 5, 5), out=(2, 3, 2), dtype="float64")
@case("large", shape=(4, 16, 32, 32, 32), out=(4, 4, 4))
def pool_values(ctx, shape, out, dtype="float32"):
    import torch

    x = ctx.rng.standard_normal(shape).astype(dtype)
    pool = torch.nn.AdaptiveAvgPool3d(out)
    result = ctx.measure(pool, ctx.put(x))
    ctx.check_close(result, _reference(x.astype("float64"), out), rtol=1e-5, atol=1e-5)


@case("grad-spreads-evenly")
def pool_grad(ctx):
    import torch

    x = ctx.put(np.zeros((1, 1, 2, 2, 2), dtype="float32"), requires_grad=True)
    pool = torch.nn.AdaptiveAvgPool3d(1)

    def backward():
        x.grad = None
        pool(x).sum().backward()
        return x.grad

    ctx.check_close(ctx.measure(backward), np.full((1, 1, 2, 2, 2), 1 / 8), dtype="float32")
