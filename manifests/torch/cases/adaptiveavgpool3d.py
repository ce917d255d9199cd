"""torch.nn.AdaptiveAvgPool3d: averages over adaptive bins to a target size (divisible and
not), global pooling, batches, autograd."""

import numpy as np
from _torchhelp import EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


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


# Every float dtype the pool takes on the CPU (integers are refused), non-divisible bins,
# in each mode.
@sweep("{dtype}-{mode}-sweep", dtype=HALF_FLOATS + FULL_FLOATS, mode=EAGER_COMPILED)
def pool_dtypes(ctx, dtype, mode):
    import torch
    from _torchhelp import RTOL, draw, placed

    x, x_h = placed(ctx, draw(ctx, (2, 3, 5, 4, 6), dtype, -2, 2), dtype)
    out = ctx.measure(ctx.in_mode(mode, torch.nn.AdaptiveAvgPool3d((2, 3, 4))), x)
    ctx.check(out.dtype == x.dtype, f"dtype {out.dtype}, not {x.dtype}")
    r = RTOL[dtype] * 5
    ctx.check_close(out, _reference(x_h, (2, 3, 4)), rtol=r, atol=r)


@sweep("grad-{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS)
def pool_grad_dtypes(ctx, dtype):
    import torch
    from _torchhelp import RTOL, placed

    # Divisible bins of 2x2x2: each input element gets 1/8 of its bin's output gradient.
    x, _ = placed(ctx, np.zeros((1, 2, 4, 4, 4), dtype="float32"), dtype, requires_grad=True)
    g_np = np.arange(16, dtype="float32").reshape(1, 2, 2, 2, 2)
    g, g_h = placed(ctx, g_np, dtype)
    pool = torch.nn.AdaptiveAvgPool3d(2)

    def backward():
        x.grad = None
        (pool(x) * g).sum().backward()
        return x.grad

    expected = np.kron(g_h, np.ones((1, 1, 2, 2, 2))) / 8
    ctx.check_close(ctx.measure(backward), expected, rtol=RTOL[dtype], atol=RTOL[dtype])


@case("gradcheck-non-divisible-sweep")
def pool_gradcheck(ctx):
    import torch

    x = ctx.put(ctx.rng.standard_normal((1, 1, 3, 5, 4)), requires_grad=True)
    pool = torch.nn.AdaptiveAvgPool3d((2, 3, 3))
    ctx.check(ctx.measure(torch.autograd.gradcheck, pool, (x,), warm=False), "gradcheck")


@sweep(
    "{form}-sweep",
    form=[
        "unbatched",
        "none-keeps-size",
        "int-size",
        "channels-last",
        "non-contiguous",
        "upsampling",
        "functional",
    ],
)
def pool_forms(ctx, form):
    import torch
    import torch.nn.functional as F

    x_np = ctx.rng.standard_normal((2, 3, 4, 6, 5))
    x = ctx.put(x_np)
    size = {"none-keeps-size": (2, None, 3), "int-size": 3, "upsampling": (6, 7, 8)}.get(
        form, (2, 3, 2)
    )
    ref_size = {"none-keeps-size": (2, 6, 3), "int-size": (3, 3, 3)}.get(form, size)
    if form == "unbatched":
        x, x_np = x[0], x_np[0]  # (C, D, H, W)
    elif form == "channels-last":
        x = x.contiguous(memory_format=torch.channels_last_3d)
    elif form == "non-contiguous":
        x, x_np = x.transpose(3, 4), x_np.transpose(0, 1, 2, 4, 3)
        ctx.check(not x.is_contiguous(), "the input is a non-contiguous view", "other")
    if form == "functional":
        out = ctx.measure(F.adaptive_avg_pool3d, x, size)
    else:
        out = ctx.measure(torch.nn.AdaptiveAvgPool3d(size), x)
    ctx.check_close(out, _reference(x_np, ref_size), dtype="float64", kind="reduction")


# The study's kinds of paths (issue #33): the documented refusals (rank, output size,
# integer input, an empty spatial dim), vmap over an extra leading dim, second derivatives.
@sweep("raises-{arg}", arg=["2d-input", "output-size-length", "integer-input", "empty-spatial"])
def pool_refusals(ctx, arg):
    import torch.nn.functional as F
    from _torchhelp import kernel_error, refusal

    shape = {"2d-input": (3, 4), "empty-spatial": (1, 1, 0, 4, 4)}.get(arg, (1, 1, 4, 4, 4))
    x = ctx.put(np.zeros(shape, dtype="int64" if arg == "integer-input" else "float32"))
    size = (2, 2) if arg == "output-size-length" else 2
    error, fragment = {
        "2d-input": (RuntimeError, "Expected 4D or 5D"),
        "output-size-length": (RuntimeError, "output_size must be 3"),
        "integer-input": (kernel_error(ctx), "not implemented for 'Long'"),
        "empty-spatial": (RuntimeError, "non-zero size for non-batch dimensions"),
    }[arg]
    refusal(ctx, lambda: F.adaptive_avg_pool3d(x, size), error, fragment)


@sweep("vmap-{dtype}", dtype=["float32", "float64"])
def pool_vmap(ctx, dtype):
    import torch.nn.functional as F
    from _torchhelp import RTOL, placed, vmap

    vmapped = vmap(ctx)(lambda t: F.adaptive_avg_pool3d(t, (2, 3, 2)))
    x, x_h = placed(ctx, ctx.rng.standard_normal((3, 2, 2, 5, 4, 6)).astype(dtype), dtype)
    out = ctx.measure(vmapped, x)
    r = RTOL[dtype] * 5
    ctx.check_close(out, _reference(x_h, (2, 3, 2)), rtol=r, atol=r)


@case("grad2-gradgradcheck")
def pool_gradgrad(ctx):
    import torch.nn.functional as F
    from _torchhelp import gradgradcheck

    gradgradcheck(
        ctx,
        lambda t: F.adaptive_avg_pool3d(t, (2, 3, 2)) ** 2,
        ctx.rng.standard_normal((1, 1, 3, 5, 4)),
    )
