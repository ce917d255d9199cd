"""torch.nn.functional.batch_norm: training (batch statistics, running stats updated with
momentum) and inference (running stats), affine, autograd."""

import numpy as np

from portbench_runner.api import case


@case("training-2d", shape=(16, 6))
@case("training-4d", shape=(8, 3, 5, 5))
@case("training-float64", shape=(10, 4), dtype="float64")
@case("large", shape=(64, 64, 32, 32))
def batch_norm_training(ctx, shape, dtype="float32"):
    import torch.nn.functional as F

    x = (ctx.rng.standard_normal(shape) * 2 + 3).astype(dtype)
    c = shape[1]
    mean, var = ctx.put(np.zeros(c, dtype=dtype)), ctx.put(np.ones(c, dtype=dtype))
    out = ctx.measure(F.batch_norm, ctx.put(x), mean, var, training=True, momentum=0.1, warm=False)
    axes = (0, *tuple(range(2, len(shape))))
    x64 = x.astype("float64")
    shape_c = (1, c) + (1,) * (len(shape) - 2)
    expected = (x64 - x64.mean(axis=axes).reshape(shape_c)) / np.sqrt(
        x64.var(axis=axes).reshape(shape_c) + 1e-5
    )
    ctx.check_close(out, expected, rtol=1e-4, atol=1e-4)
    n = x.size // c
    ctx.check_close(mean, 0.1 * x64.mean(axis=axes), rtol=1e-4, atol=1e-5, what="running mean")
    ctx.check_close(
        var, 0.9 + 0.1 * x64.var(axis=axes) * n / (n - 1), rtol=1e-4, atol=1e-5, what="running var"
    )


@case("inference-uses-running-stats")
def batch_norm_eval(ctx):
    import torch.nn.functional as F

    x = ctx.rng.standard_normal((5, 3))
    mean, var = np.array([1.0, -1.0, 0.5]), np.array([4.0, 1.0, 0.25])
    w, b = np.array([2.0, 1.0, 0.5]), np.array([0.0, 1.0, -1.0])
    out = ctx.measure(
        F.batch_norm,
        ctx.put(x),
        ctx.put(mean),
        ctx.put(var),
        ctx.put(w),
        ctx.put(b),
        training=False,
    )
    ctx.check_close(out, (x - mean) / np.sqrt(var + 1e-5) * w + b, dtype="float64")


@case("grad-mean-zero")
def batch_norm_grad(ctx):
    import torch.nn.functional as F

    x = ctx.put(ctx.rng.standard_normal((8, 2)), requires_grad=True)
    target = ctx.put(ctx.rng.standard_normal((8, 2)))

    def backward():
        x.grad = None
        (F.batch_norm(x, None, None, training=True) * target).sum().backward()
        return x.grad

    ctx.check_close(
        ctx.to_numpy(ctx.measure(backward)).sum(axis=0), np.zeros(2), dtype="float64", atol=1e-9
    )
