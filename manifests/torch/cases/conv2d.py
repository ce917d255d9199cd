"""torch.nn.Conv2d: forward against a direct correlation in NumPy (stride, padding,
dilation, groups, bias), dtypes, channels, autograd, compiled."""

import numpy as np
from _torchhelp import COMPLEXES, EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


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


def correlate2d_any(x, w, b, **opts):
    """correlate2d for complex too: four real correlations (bias added once)."""
    if not (np.iscomplexobj(x) or np.iscomplexobj(w)):
        return correlate2d(x, w, b, **opts)
    xr, xi, wr, wi = x.real, x.imag, w.real, w.imag
    real = correlate2d(xr, wr, None, **opts) - correlate2d(xi, wi, None, **opts)
    imag = correlate2d(xr, wi, None, **opts) + correlate2d(xi, wr, None, **opts)
    out = real + 1j * imag
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def _conv_with_host_params(ctx, dtype, in_c=4, out_c=6, k=3, **opts):
    """A Conv2d of `dtype` whose weights are drawn on the host; (conv, weight, bias) exact."""
    import torch
    from _torchhelp import draw, placed

    conv = torch.nn.Conv2d(in_c, out_c, k, **opts).to(
        device=ctx.device, dtype=getattr(torch, dtype)
    )
    w, w_h = placed(ctx, draw(ctx, tuple(conv.weight.shape), dtype, -0.5, 0.5), dtype)
    b, b_h = placed(ctx, draw(ctx, (out_c,), dtype, -0.5, 0.5), dtype)
    with torch.no_grad():
        conv.weight.copy_(w)
        conv.bias.copy_(b)
    return conv, w_h, b_h


# Every dtype Conv2d takes on the CPU (float16 and complex included; integers refused), in
# each mode, with stride and padding.
@sweep("{dtype}-{mode}-sweep", dtype=HALF_FLOATS + FULL_FLOATS + COMPLEXES, mode=EAGER_COMPILED)
def conv2d_dtypes(ctx, dtype, mode):
    import torch
    from _torchhelp import RTOL, draw, placed

    conv, w_h, b_h = _conv_with_host_params(ctx, dtype, stride=2, padding=1)
    x, x_h = placed(ctx, draw(ctx, (2, 4, 7, 7), dtype, -1, 1), dtype)
    with torch.no_grad():
        out = ctx.measure(ctx.in_mode(mode, conv), x)
    ctx.check(out.dtype == x.dtype, f"dtype {out.dtype}, not {x.dtype}")
    r = RTOL[dtype] * 10  # 36-term sums per output
    ctx.check_close(out, correlate2d_any(x_h, w_h, b_h, stride=2, padding=1), rtol=r, atol=r)


@sweep("grad-{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS)
def conv2d_grad_dtypes(ctx, dtype):
    from _torchhelp import RTOL, placed

    # d(sum(conv(x)))/dw[o, c, i, j] is the sum of the input window w[.., i, j] touches.
    conv, _, _ = _conv_with_host_params(ctx, dtype, in_c=2, out_c=3)
    x, x_h = placed(ctx, ctx.rng.integers(0, 4, size=(1, 2, 5, 5)).astype("float32"), dtype)

    def backward():
        conv.zero_grad()
        conv(x).sum().backward()
        return conv.weight.grad, conv.bias.grad

    gw, gb = ctx.measure(backward)
    win = np.array(
        [
            [[x_h[0, c, i : i + 3, j : j + 3].sum() for j in range(3)] for i in range(3)]
            for c in range(2)
        ]
    )
    r = RTOL[dtype] * 10
    ctx.check_close(gw, np.broadcast_to(win, (3, 2, 3, 3)), rtol=r, atol=r, what="weight grad")
    ctx.check_close(gb, np.full(3, 9.0), rtol=r, atol=r, what="bias grad")


@sweep("gradcheck-{dtype}-sweep", dtype=["float64", "complex128"])
def conv2d_gradcheck(ctx, dtype):
    import torch

    conv, _, _ = _conv_with_host_params(ctx, dtype, in_c=2, out_c=2, k=2)
    x = ctx.put(ctx.rng.standard_normal((1, 2, 4, 4)), dtype=dtype, requires_grad=True)
    ctx.check(ctx.measure(torch.autograd.gradcheck, conv, (x,), warm=False), "gradcheck failed")


@sweep(
    "{form}-sweep",
    form=[
        "padding-same",
        "padding-reflect",
        "padding-circular",
        "channels-last",
        "non-contiguous",
        "unbatched",
        "empty-batch",
    ],
)
def conv2d_forms(ctx, form):
    import torch

    opts = {
        "padding-same": {"padding": "same"},
        "padding-reflect": {"padding": 1, "padding_mode": "reflect"},
        "padding-circular": {"padding": 1, "padding_mode": "circular"},
    }.get(form, {})
    if form == "padding-same" and not ctx.version_at_least("1.9"):
        ctx.skip(f"padding='same' arrived in torch 1.9 (this is {ctx.version})")
    conv, w_h, b_h = _conv_with_host_params(ctx, "float32", **opts)
    x_np = ctx.rng.standard_normal((2, 4, 6, 6)).astype("float32")
    x = ctx.put(x_np)
    x64 = x_np.astype("float64")
    if form in {"padding-same", "padding-reflect", "padding-circular"}:
        mode = {"padding-same": "constant", "padding-reflect": "reflect"}.get(form, "wrap")
        x64 = np.pad(x64, ((0, 0), (0, 0), (1, 1), (1, 1)), mode=mode)
    elif form == "channels-last":
        x = x.contiguous(memory_format=torch.channels_last)
    elif form == "non-contiguous":
        x = ctx.put(np.ascontiguousarray(x_np.transpose(0, 1, 3, 2))).transpose(2, 3)
        ctx.check(not x.is_contiguous(), "the input is a non-contiguous view", "other")
    elif form == "unbatched":
        x, x64 = x[0], x64[:1]
    else:
        x, x64 = ctx.put(np.zeros((0, 4, 6, 6), dtype="float32")), np.zeros((0, 4, 6, 6))
    with torch.no_grad():
        out = ctx.measure(conv, x)
    expected = correlate2d(x64, w_h, b_h)
    if form == "unbatched":
        expected = expected[0]
    ctx.check_close(out, expected, rtol=1e-4, atol=1e-4)


# The study's kinds of paths (issue #33): each documented refusal with class and message,
# the full grid of stride x padding x dilation x groups against the direct correlation,
# vmap over a batch of weights (model ensembling), second derivatives, and the module's
# parameters through a saved state dict.
@sweep(
    "raises-{arg}",
    arg=["channels", "groups", "same-padding-strided", "padding-mode", "kernel-too-big"],
)
def conv2d_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    if arg in ("groups", "same-padding-strided", "padding-mode"):
        opts, fragment = {
            "groups": ({"groups": 3}, "in_channels must be divisible by groups"),
            "same-padding-strided": (
                {"stride": 2, "padding": "same"},
                "not supported for strided convolutions",
            ),
            "padding-mode": ({"padding_mode": "mirror"}, "padding_mode must be one of"),
        }[arg]
        refusal(ctx, lambda: torch.nn.Conv2d(4, 6, 3, **opts), ValueError, fragment)
        return
    conv = torch.nn.Conv2d(4, 6, 3 if arg == "channels" else 5).to(ctx.device)
    x = ctx.put(np.zeros((1, 3, 8, 8) if arg == "channels" else (1, 4, 3, 3), dtype="float32"))
    fragment = "to have 4 channels, but got 3" if arg == "channels" else "Kernel size can't be"
    refusal(ctx, lambda: conv(x), RuntimeError, fragment)


@sweep(
    "flags-stride{stride}-pad{padding}-dil{dilation}-groups{groups}",
    stride=["1", "2"],
    padding=["0", "1"],
    dilation=["1", "2"],
    groups=["1", "2"],
)
def conv2d_grid(ctx, stride, padding, dilation, groups):
    import torch.nn.functional as F

    opts = {"stride": int(stride), "padding": int(padding), "dilation": int(dilation)}
    opts["groups"] = int(groups)
    x_np = ctx.rng.standard_normal((2, 4, 9, 8))
    w_np = ctx.rng.standard_normal((6, 4 // int(groups), 3, 3))
    b_np = ctx.rng.standard_normal(6)
    out = ctx.measure(F.conv2d, ctx.put(x_np), ctx.put(w_np), ctx.put(b_np), **opts)
    ctx.check_close(out, correlate2d(x_np, w_np, b_np, **opts), dtype="float64", kind="reduction")


@case("vmap-ensemble-weights")
def conv2d_vmap(ctx):
    import torch.nn.functional as F
    from _torchhelp import vmap

    x_np = ctx.rng.standard_normal((2, 3, 6, 6))
    w_np, b_np = ctx.rng.standard_normal((4, 5, 3, 3, 3)), ctx.rng.standard_normal((4, 5))
    x = ctx.put(x_np)
    fn = vmap(ctx)(lambda w, b: F.conv2d(x, w, b, padding=1))
    out = ctx.measure(fn, ctx.put(w_np), ctx.put(b_np))
    expected = np.stack([correlate2d(x_np, w_np[k], b_np[k], padding=1) for k in range(4)])
    ctx.check_close(out, expected, dtype="float64", kind="reduction")


@case("grad2-gradgradcheck")
def conv2d_gradgrad(ctx):
    import torch.nn.functional as F
    from _torchhelp import gradgradcheck

    gradgradcheck(
        ctx,
        lambda x, w: F.conv2d(x, w, stride=2, padding=1) ** 2,
        ctx.rng.standard_normal((1, 2, 5, 5)),
        ctx.rng.standard_normal((2, 2, 3, 3)),
    )


@case("checkpoint-state-dict-saved")
def conv2d_restore(ctx):
    import torch
    from _torchhelp import saved

    torch.manual_seed(ctx.seed)
    source = torch.nn.Conv2d(3, 4, 3, padding=1).to(device=ctx.device, dtype=torch.float64)
    checkpoint = saved(source.state_dict())
    torch.manual_seed(ctx.seed + 1)  # another initialisation, replaced by the load
    target = torch.nn.Conv2d(3, 4, 3, padding=1).to(device=ctx.device, dtype=torch.float64)
    ctx.measure(target.load_state_dict, checkpoint, warm=False)
    x_np = ctx.rng.standard_normal((2, 3, 5, 5))
    with torch.no_grad():
        out = target(ctx.put(x_np))
    w, b = (ctx.to_numpy(t) for t in (source.weight.detach(), source.bias.detach()))
    ctx.check_close(out, correlate2d(x_np, w, b, padding=1), dtype="float64", kind="reduction")
