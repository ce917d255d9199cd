"""torch.nn.Conv3d: forward against a direct 3-d correlation (stride, padding, groups),
dtypes, autograd."""

import numpy as np
from _torchhelp import ALL_INTS, COMPLEXES, EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS, close_or_equal

from portbench_runner.api import case, sweep


def correlate3d(x, w, b, stride=1, padding=0, groups=1):
    p = padding
    x = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p), (p, p)))
    oc, icg, kd, kh, kw = w.shape
    od, oh, ow = ((s - k) // stride + 1 for s, k in zip(x.shape[2:], (kd, kh, kw)))
    out = np.zeros((x.shape[0], oc, od, oh, ow), dtype=np.result_type(x, w))
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


def _conv_and_input(ctx, dtype, in_channels=2, out_channels=3, shape=(2, 5, 5, 5), **opts):
    """A seeded Conv3d in `dtype`, an input of `dtype`, and float64/complex128 host copies of
    the exact values the module holds (half widths rounded on the device first)."""
    import torch

    torch.manual_seed(ctx.seed)
    conv = torch.nn.Conv3d(in_channels, out_channels, 3, **opts).to(
        device=ctx.device, dtype=getattr(torch, dtype)
    )
    x_np = ctx.rng.standard_normal((shape[0], in_channels, *shape[1:]))
    if dtype in COMPLEXES:
        x_np = x_np + 1j * ctx.rng.standard_normal(x_np.shape)
    host = "complex128" if dtype in COMPLEXES else "float64"
    x = ctx.put(x_np.astype("complex128" if dtype in COMPLEXES else "float32"), dtype=dtype)

    def exact(t):
        t = t.detach()
        return ctx.to_numpy(t if dtype in COMPLEXES else t.double()).astype(host)

    bias = None if conv.bias is None else exact(conv.bias)
    return conv, x, exact(x), exact(conv.weight), bias


# Every dtype Conv3d computes in on the CPU (half widths, float32/64, complex), eager and
# under torch.compile, against the float64 correlation of the exact (rounded) values. The
# sum over 2*27 products rounds like a reduction, hence kind="reduction".
@sweep("{dtype}-{mode}-sweep", dtype=HALF_FLOATS + FULL_FLOATS + COMPLEXES, mode=EAGER_COMPILED)
def conv3d_dtypes(ctx, dtype, mode):
    import torch

    conv, x, x64, w, b = _conv_and_input(ctx, dtype)
    # torch 1.12's CPU conv3d has no float16 kernel ("compute_columns3d" not implemented for
    # 'Half'): that case fails there, as the other half-precision gaps of 1.12 do.
    with torch.no_grad():
        out = ctx.measure(ctx.in_mode(mode, conv), x)
    ctx.check(out.dtype == getattr(torch, dtype), f"output dtype {out.dtype}", "type")
    expected = correlate3d(x64, w, b)
    ctx.check_close(
        out if dtype in COMPLEXES else out.double(), expected, dtype=dtype, kind="reduction"
    )


# Argument forms: dilation, padding="same", circular/reflect/replicate padding modes, no
# bias, an unbatched (C, D, H, W) input, a non-contiguous (transposed) input view, and the
# channels_last_3d memory format; each against the same float64 correlation.
@sweep(
    "{form}-form-sweep",
    form=[
        "dilation",
        "padding-same",
        "circular",
        "reflect",
        "replicate",
        "no-bias",
        "unbatched",
        "non-contiguous",
        "channels-last",
    ],
)
def conv3d_forms(ctx, form):
    import torch

    opts = {
        "dilation": {"dilation": 2},
        "padding-same": {"padding": "same"},
        "circular": {"padding": 1, "padding_mode": "circular"},
        "reflect": {"padding": 1, "padding_mode": "reflect"},
        "replicate": {"padding": 1, "padding_mode": "replicate"},
        "no-bias": {"bias": False},
    }.get(form, {})
    conv, x, x64, w, b = _conv_and_input(ctx, "float64", shape=(2, 6, 6, 6), **opts)
    ref_x, ref_opts = x64, {}
    mode = {"circular": "wrap", "reflect": "reflect", "replicate": "edge"}.get(form)
    if mode is not None:  # pad on the host as the mode does, then correlate unpadded
        ref_x = np.pad(x64, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)), mode=mode)
    elif form == "padding-same":
        ref_opts = {"padding": 1}
    if form == "dilation":  # a dilated 3-kernel is a 5-kernel with zeros between taps
        wide = np.zeros((*w.shape[:2], 5, 5, 5))
        wide[:, :, ::2, ::2, ::2] = w
        w = wide
    if form == "unbatched":
        x = x[0]
    elif form == "non-contiguous":
        spread = torch.zeros_like(x).repeat(1, 1, 2, 1, 1)
        spread[:, :, ::2] = x
        x = spread[:, :, ::2]  # every other depth slice of a larger tensor: a strided view
        ctx.check(not x.is_contiguous(), "the input view is contiguous", "type")
    elif form == "channels-last":
        x = x.to(memory_format=torch.channels_last_3d)
        conv = conv.to(memory_format=torch.channels_last_3d)
    with torch.no_grad():
        out = ctx.measure(conv, x)
    expected = correlate3d(ref_x, w, b, **ref_opts)
    ctx.check_close(out, expected[0] if form == "unbatched" else expected, dtype="float64")


# Gradients: gradcheck (finite differences) of input, weight and bias in float64 and
# complex128, with stride, padding and groups so every backward path is taken.
@sweep("gradcheck-{dtype}-sweep", dtype=["float64", "complex128"])
def conv3d_gradcheck(ctx, dtype):
    import torch

    x_np = ctx.rng.standard_normal((1, 2, 4, 4, 4))
    w_np = ctx.rng.standard_normal((2, 1, 2, 2, 2))
    b_np = ctx.rng.standard_normal(2)
    if dtype == "complex128":
        x_np, w_np = x_np + 1j * ctx.rng.standard_normal(x_np.shape), w_np + 0.5j
    x, w, b = (ctx.put(v.astype(dtype), requires_grad=True) for v in (x_np, w_np, b_np))

    def conv(x, w, b):
        return torch.nn.functional.conv3d(x, w, b, stride=2, padding=1, groups=2)

    ok = ctx.measure(torch.autograd.gradcheck, conv, (x, w, b), warm=False)
    ctx.check(bool(ok), "autograd disagrees with finite differences")


# Closed-form gradients in float32: for loss = sum(conv(x)), d/dbias = number of output
# positions per channel, d/dweight[o, c, a, i, j] = sum of the input window the tap sees.
@case("weight-bias-grad-float32")
def conv3d_weight_grad(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    conv = torch.nn.Conv3d(2, 3, 2).to(ctx.device)
    x_np = ctx.rng.standard_normal((2, 2, 4, 4, 4)).astype("float32")
    x = ctx.put(x_np)

    def backward():
        conv.zero_grad(set_to_none=True)
        conv(x).sum().backward()
        return conv.weight.grad, conv.bias.grad

    grad_w, grad_b = ctx.measure(backward)
    x64 = x_np.astype("float64")
    expected_w = np.zeros((3, 2, 2, 2, 2))
    for a in range(2):
        for i in range(2):
            for j in range(2):
                window = x64[:, :, a : a + 3, i : i + 3, j : j + 3].sum(axis=(0, 2, 3, 4))
                expected_w[:, :, a, i, j] = window
    ctx.check_close(grad_w, expected_w, dtype="float32", kind="reduction")
    ctx.check_close(grad_b, np.full(3, 2 * 27.0), dtype="float32", kind="reduction")


# The CPU's slow_conv3d kernel takes every integer width: exact sums of small integers,
# wrapping like the dtype (int8/uint8 overflow here), with stride and padding.
@sweep("int-{dtype}-sweep", dtype=ALL_INTS)
def conv3d_ints(ctx, dtype):
    import torch

    x_np = ctx.rng.integers(0, 4, size=(1, 2, 4, 4, 4))
    w_np = ctx.rng.integers(0, 3, size=(2, 2, 2, 2, 2))
    b_np = ctx.rng.integers(0, 5, size=2)
    x, w, b = (ctx.put(v.astype(dtype)) for v in (x_np, w_np, b_np))
    out = ctx.measure(torch.nn.functional.conv3d, x, w, b, stride=2, padding=1)
    ctx.check(out.dtype == getattr(torch, dtype), f"output dtype {out.dtype}", "type")
    expected = correlate3d(x_np, w_np, b_np, stride=2, padding=1)
    close_or_equal(ctx, out, expected.astype("int64"), dtype)


# The study's kinds of paths (issue #33): each documented refusal with class and message,
# the grid of stride x padding x groups against the direct correlation, vmap over a batch
# of weights, second derivatives, and the module through a saved state dict.
@sweep("raises-{arg}", arg=["channels", "out-groups", "2d-input"])
def conv3d_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    if arg == "out-groups":
        refusal(
            ctx,
            lambda: torch.nn.Conv3d(4, 6, 3, groups=4),
            ValueError,
            "out_channels must be divisible by groups",
        )
        return
    conv = torch.nn.Conv3d(4, 6, 3).to(ctx.device)
    shape, fragment = {
        "channels": ((1, 3, 6, 6, 6), "to have 4 channels, but got 3"),
        "2d-input": ((4, 8), "Expected 4D (unbatched) or 5D (batched) input"),
    }[arg]
    x = ctx.put(np.zeros(shape, dtype="float32"))
    refusal(ctx, lambda: conv(x), RuntimeError, fragment)


@sweep(
    "flags-stride{stride}-pad{padding}-groups{groups}",
    stride=["1", "2"],
    padding=["0", "1"],
    groups=["1", "2"],
)
def conv3d_grid(ctx, stride, padding, groups):
    import torch.nn.functional as F

    opts = {"stride": int(stride), "padding": int(padding), "groups": int(groups)}
    x_np = ctx.rng.standard_normal((2, 4, 5, 6, 5))
    w_np = ctx.rng.standard_normal((4, 4 // int(groups), 3, 3, 3))
    b_np = ctx.rng.standard_normal(4)
    out = ctx.measure(F.conv3d, ctx.put(x_np), ctx.put(w_np), ctx.put(b_np), **opts)
    ctx.check_close(out, correlate3d(x_np, w_np, b_np, **opts), dtype="float64", kind="reduction")


@case("vmap-ensemble-weights")
def conv3d_vmap(ctx):
    import torch.nn.functional as F
    from _torchhelp import vmap

    x_np = ctx.rng.standard_normal((2, 2, 4, 4, 4))
    w_np, b_np = ctx.rng.standard_normal((3, 3, 2, 3, 3, 3)), ctx.rng.standard_normal((3, 3))
    x = ctx.put(x_np)
    fn = vmap(ctx)(lambda w, b: F.conv3d(x, w, b, padding=1))
    out = ctx.measure(fn, ctx.put(w_np), ctx.put(b_np))
    expected = np.stack([correlate3d(x_np, w_np[k], b_np[k], padding=1) for k in range(3)])
    ctx.check_close(out, expected, dtype="float64", kind="reduction")


@case("grad2-gradgradcheck")
def conv3d_gradgrad(ctx):
    import torch.nn.functional as F
    from _torchhelp import gradgradcheck

    gradgradcheck(
        ctx,
        lambda x, w: F.conv3d(x, w, stride=2, padding=1) ** 2,
        ctx.rng.standard_normal((1, 2, 3, 4, 3)),
        ctx.rng.standard_normal((2, 2, 2, 2, 2)),
    )


@case("checkpoint-state-dict-saved")
def conv3d_restore(ctx):
    import torch
    from _torchhelp import saved

    torch.manual_seed(ctx.seed)
    source = torch.nn.Conv3d(2, 3, 3, padding=1).to(device=ctx.device, dtype=torch.float64)
    checkpoint = saved(source.state_dict())
    torch.manual_seed(ctx.seed + 1)
    target = torch.nn.Conv3d(2, 3, 3, padding=1).to(device=ctx.device, dtype=torch.float64)
    ctx.measure(target.load_state_dict, checkpoint, warm=False)
    x_np = ctx.rng.standard_normal((1, 2, 4, 4, 4))
    with torch.no_grad():
        out = target(ctx.put(x_np))
    w, b = (ctx.to_numpy(t) for t in (source.weight.detach(), source.bias.detach()))
    ctx.check_close(out, correlate3d(x_np, w, b, padding=1), dtype="float64", kind="reduction")
