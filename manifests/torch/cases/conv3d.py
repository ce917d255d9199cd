"""torch.nn.Conv3d: forward against a direct 3-d correlation (stride, padding, groups),
dtypes, autograd."""

import numpy as np

from portbench_runner.api import case, sweep


def correlate3d(x, w, b, stride=1, padding=0, groups=1):
    p = padding
    x = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p), (p, p)))
    oc, icg, kd, kh, kw = w.shape
    od, oh, ow = ((s - k) // stride + 1 for s, k in zip(x.shape[2:], (kd, kh, kw)))
    out = np.zeros((x.shape[0], oc, od, oh, ow))
    per_group = oc // groups
    for o in range(oc):
        g = o // per_group
        for a in range(kd):
            for i in range(kh):
                for j in range(kw):
                    patch = x[
                        :,
                        g * icg : (g + 1) * icg,
                        a : a + stride * od : stride,
                        i : i + stride * oh : stride,
                        j : j + stride * ow : stride,
                    ]
                    out[:, o] += np.einsum("ncdhw,c->ndhw", patch, w[o, :, a, i, j])
        if b is not None:
            out[:, o] += b[o]
    return out


@case("basic", opts={})
@case("stride-padding", opts={"stride": 2, "padding": 1})
@case("groups", opts={"groups": 2})
@case("float64", opts={}, dtype="float64")
@case("large", opts={"padding": 1}, shape=(2, 8, 24, 24, 24), out_channels=16)
def conv3d_forward(ctx, opts, dtype="float32", shape=(2, 4, 6, 6, 6), out_channels=4):
    import torch

    torch.manual_seed(ctx.seed)
    conv = torch.nn.Conv3d(shape[1], out_channels, 3, **opts).to(
        device=ctx.device, dtype=getattr(torch, dtype)
    )
    x = ctx.rng.standard_normal(shape).astype(dtype)
    with torch.no_grad():
        out = ctx.measure(conv, ctx.put(x))
    w = ctx.to_numpy(conv.weight).astype("float64")
    b = ctx.to_numpy(conv.bias).astype("float64")
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(out, correlate3d(x.astype("float64"), w, b, **opts), rtol=tol, atol=tol * 10)


@case("backward-input-grad")
def conv3d_backward(ctx):
    import torch

    conv = torch.nn.Conv3d(1, 1, 1, bias=False).to(ctx.device)
    with torch.no_grad():
        conv.weight.fill_(2.0)
    x = ctx.put(np.zeros((1, 1, 3, 3, 3), dtype="float32"), requires_grad=True)

    def backward():
        x.grad = None
        conv(x).sum().backward()
        return x.grad

    ctx.check_close(ctx.measure(backward), np.full((1, 1, 3, 3, 3), 2.0), dtype="float32")


# As torch's own test_conv_empty_channel (_test_module_empty_input, check_size=False): a
# convolution over zero input channels runs forward and backward, and every gradient is zero.
# The output's shape is not asserted there, and torch's CPU gives (N, 0, ...) not (N, C_out,
# ...): the bias gets no gradient because it is not added to an empty output.
@sweep("empty-channel-{dtype}", dtype=["float32", "complex64"])
def conv3d_empty_channel(ctx, dtype):
    import torch

    torch.manual_seed(ctx.seed)
    conv = torch.nn.Conv3d(0, 4, 3).to(device=ctx.device, dtype=getattr(torch, dtype))
    x = ctx.put(np.zeros((2, 0, 5, 5, 5), dtype=dtype), requires_grad=True)

    def forward_backward():
        x.grad = None
        conv.zero_grad(set_to_none=True)
        out = conv(x)
        out.backward(torch.ones_like(out))
        return x.grad, conv.weight.grad, conv.bias.grad

    grad_x, grad_w, grad_b = ctx.measure(forward_backward)
    ctx.check_equal(grad_x, np.zeros((2, 0, 5, 5, 5), dtype=dtype), what="input gradient")
    ctx.check_equal(grad_w, np.zeros((4, 0, 3, 3, 3), dtype=dtype), what="weight gradient")
    ctx.check_equal(grad_b, np.zeros(4, dtype=dtype), what="bias gradient")
