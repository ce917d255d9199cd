"""torch.nn.Conv2d: forward against a direct correlation in NumPy (stride, padding,
dilation, groups, bias), dtypes, channels, autograd, compiled."""

import numpy as np

from portbench_runner.api import case


def correlate2d(x, w, b, stride=1, padding=0, dilation=1, groups=1):
    n, _c, _h, _wd = x.shape
    oc, icg, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh = (x.shape[2] - dilation * (kh - 1) - 1) // stride + 1
    ow = (x.shape[3] - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, oc, oh, ow))
    per_group = oc // groups
    for o in range(oc):
        g = o // per_group
        for i in range(kh):
            for j in range(kw):
                patch = x[
                    :,
                    g * icg : (g + 1) * icg,
                    i * dilation : i * dilation + stride * oh : stride,
                    j * dilation : j * dilation + stride * ow : stride,
                ]
                out[:, o] += np.einsum("nchw,c->nhw", patch, w[o, :, i, j])
        if b is not None:
            out[:, o] += b[o]
    return out


@case("basic", opts={})
@case("stride-padding", opts={"stride": 2, "padding": 1})
@case("dilation", opts={"dilation": 2})
@case("groups", opts={"groups": 2})
@case("no-bias", opts={"bias": False})
@case("float64", opts={}, dtype="float64")
@case("large", opts={"padding": 1}, shape=(16, 32, 64, 64), out_channels=64)
def conv2d_forward(ctx, opts, dtype="float32", shape=(2, 4, 12, 12), out_channels=6):
    import torch

    torch.manual_seed(ctx.seed)
    conv = torch.nn.Conv2d(shape[1], out_channels, 3, **opts).to(
        device=ctx.device, dtype=getattr(torch, dtype)
    )
    x = ctx.rng.standard_normal(shape).astype(dtype)
    with torch.no_grad():
        out = ctx.measure(conv, ctx.put(x))
    w = ctx.to_numpy(conv.weight.detach()).astype("float64")
    b = ctx.to_numpy(conv.bias.detach()).astype("float64") if conv.bias is not None else None
    kwargs = {k: v for k, v in opts.items() if k != "bias"}
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(out, correlate2d(x.astype("float64"), w, b, **kwargs), rtol=tol, atol=tol * 10)


@case("backward-weight-grad")
def conv2d_backward(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    conv = torch.nn.Conv2d(1, 1, 2, bias=False).to(ctx.device)
    x = np.arange(9, dtype="float32").reshape(1, 1, 3, 3)
    inputs = ctx.put(x)

    def backward():
        conv.zero_grad()
        conv(inputs).sum().backward()
        return conv.weight.grad

    # d(sum)/dw[i, j] is the sum of the input window positions w[i, j] touches.
    expected = np.array([[x[0, 0, i : i + 2, j : j + 2].sum() for j in range(2)] for i in range(2)])
    ctx.check_close(ctx.measure(backward), expected.reshape(1, 1, 2, 2), dtype="float32")


@case("bfloat16")
def conv2d_bf16(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    conv = torch.nn.Conv2d(3, 4, 3).to(device=ctx.device, dtype=torch.bfloat16)
    x = ctx.put(ctx.rng.standard_normal((1, 3, 8, 8)).astype("float32"), dtype="bfloat16")
    with torch.no_grad():
        out = ctx.measure(conv, x)
    w = ctx.to_numpy(conv.weight).astype("float64")
    b = ctx.to_numpy(conv.bias).astype("float64")
    ctx.check_close(out, correlate2d(ctx.to_numpy(x).astype("float64"), w, b), rtol=5e-2, atol=5e-2)
