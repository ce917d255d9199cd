"""torch.nn.TransformerEncoderLayer: eval-mode output against a NumPy post-norm reference
(attention, feed-forward, layer norms), batch_first, masks, autograd."""

import numpy as np
from _attention import attention, encoder_layer, layer_norm
from _torchhelp import FLOAT_DTYPES, MODES, NET_TOL, gradcheck, param_values

from portbench_runner.api import case, sweep


def _layer(ctx, dtype="float32", **kwargs):
    import torch

    torch.manual_seed(ctx.seed)
    layer = torch.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, **kwargs)
    return layer.to(device=ctx.device, dtype=getattr(torch, dtype)).eval()


@case("float32", dtype="float32")
@case("float64", dtype="float64")
@case("longer-sequence", dtype="float32", seq=64, batch=8)
def encoder_layer_forward(ctx, dtype, seq=10, batch=3):
    import torch

    layer = _layer(ctx, dtype)
    x = ctx.rng.standard_normal((seq, batch, 16)).astype(dtype)
    with torch.no_grad():
        out = ctx.measure(layer, ctx.put(x))
    params = {n: ctx.to_numpy(t).astype("float64") for n, t in layer.named_parameters()}
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(out, encoder_layer(x.astype("float64"), params, 4), rtol=tol, atol=tol)


@case("batch-first-matches")
def encoder_layer_batch_first(ctx):
    import torch

    a = _layer(ctx)
    b = _layer(ctx, batch_first=True)
    b.load_state_dict(a.state_dict())
    x = ctx.rng.standard_normal((5, 2, 16)).astype("float32")
    with torch.no_grad():
        out = ctx.measure(b, ctx.put(x.transpose(1, 0, 2)))
        ref = a(ctx.put(x))
    ctx.check_close(
        out, ctx.to_numpy(ref).transpose(1, 0, 2), dtype="float32", rtol=1e-5, atol=1e-5
    )


@case("causal-mask-hides-the-future")
def encoder_layer_mask(ctx):
    import torch

    layer = _layer(ctx)
    mask = ctx.put(np.triu(np.full((6, 6), -np.inf, dtype="float32"), 1))
    x = ctx.rng.standard_normal((6, 1, 16)).astype("float32")
    changed = x.copy()
    changed[4:] += 5.0
    with torch.no_grad():
        out = ctx.measure(layer, ctx.put(x), src_mask=mask)
        other = layer(ctx.put(changed), src_mask=mask)
    ctx.check_close(
        ctx.to_numpy(other)[:4], ctx.to_numpy(out)[:4], dtype="float32", rtol=1e-5, atol=1e-5
    )


def _pre_norm(x, p, heads, activation):
    """norm_first=True: x + attn(norm1(x)), then + ff(norm2(.)), no final norm."""
    x = x + attention(layer_norm(x, p["norm1.weight"], p["norm1.bias"]), p, heads)
    y = layer_norm(x, p["norm2.weight"], p["norm2.bias"])
    ff = activation(y @ p["linear1.weight"].T + p["linear1.bias"]) @ p["linear2.weight"].T
    return x + ff + p["linear2.bias"]


def _gelu(z):
    from math import erf

    return 0.5 * z * (1 + np.vectorize(erf)(z / np.sqrt(2)))


# Every float dtype the layer runs in on the CPU, post- and pre-norm, eager and compiled.
@sweep(
    "{dtype}-{norm}-{mode}-sweep",
    dtype=FLOAT_DTYPES,
    norm=["post-norm", "pre-norm"],
    mode=MODES,
    # Compiling a layer costs seconds: compile the post-norm layer only, per dtype.
    exclude=[{"norm": "pre-norm", "mode": "compiled"}],
)
def encoder_layer_dtypes(ctx, dtype, norm, mode):
    import torch

    layer = _layer(ctx, dtype, norm_first=norm == "pre-norm")
    x = ctx.put(param_values(dtype, ctx.rng.standard_normal((6, 2, 16))), dtype=dtype)
    with torch.no_grad():
        out = ctx.measure(ctx.in_mode(mode, layer), x)
    ctx.check(str(out.dtype) == f"torch.{dtype}", f"the layer returned {out.dtype}")
    params = {n: ctx.to_numpy(t).astype("float64") for n, t in layer.named_parameters()}
    x_h = np.asarray(ctx.to_numpy(x)).astype("float64")
    relu = lambda z: np.maximum(z, 0)  # noqa: E731
    expected = (
        _pre_norm(x_h, params, 4, relu) if norm == "pre-norm" else encoder_layer(x_h, params, 4)
    )
    # Two matmul blocks, a softmax and two layer norms: allow many roundings of the dtype.
    ctx.check_close(out, expected, rtol=NET_TOL[dtype], atol=NET_TOL[dtype])


@sweep(
    "{form}-form",
    form=["gelu", "key-padding-mask", "batch-first-fast-path", "no-bias", "train-mode-no-dropout"],
)
def encoder_layer_forms(ctx, form):
    import torch

    x_np = ctx.rng.standard_normal((5, 2, 16))
    if form == "no-bias" and not ctx.version_at_least("2.1"):
        ctx.skip(f"TransformerEncoderLayer(bias=False) arrived in torch 2.1 ({ctx.version})")
    kwargs = {"gelu": {"activation": "gelu"}, "no-bias": {"bias": False}}.get(form, {})
    layer = _layer(ctx, "float64", **kwargs)
    params = {n: ctx.to_numpy(t).astype("float64") for n, t in layer.named_parameters()}
    if form == "no-bias":
        zero = {n.replace("weight", "bias"): np.zeros(t.shape[0]) for n, t in params.items()}
        params = {**zero, **params}
        for name in ("norm1.bias", "norm2.bias"):
            params[name] = np.zeros(16)
    activation = _gelu if form == "gelu" else (lambda z: np.maximum(z, 0))
    with torch.no_grad():
        if form == "key-padding-mask":
            # Padded keys get no attention: changing them leaves the other positions alone.
            pad = ctx.put(np.array([[False] * 4 + [True]] * 2))
            changed = x_np.copy()
            changed[4] += 3.0
            out = ctx.measure(layer, ctx.put(x_np), src_key_padding_mask=pad)
            other = layer(ctx.put(changed), src_key_padding_mask=pad)
            ctx.check_close(ctx.to_numpy(other)[:4], ctx.to_numpy(out)[:4], dtype="float64")
            expected = None
        elif form == "batch-first-fast-path":
            # eval + no_grad + batch_first is the case torch may route to its fused kernel.
            fast = _layer(ctx, "float64", batch_first=True)
            fast.load_state_dict(layer.state_dict())
            out = ctx.measure(fast, ctx.put(x_np.transpose(1, 0, 2)))
            out = out.transpose(0, 1)
            expected = encoder_layer(x_np, params, 4)
        elif form == "train-mode-no-dropout":
            layer.train()  # dropout=0: training mode must compute the same function
            out, expected = ctx.measure(layer, ctx.put(x_np)), encoder_layer(x_np, params, 4)
        else:
            out = ctx.measure(layer, ctx.put(x_np))
            expected = encoder_layer(x_np, params, 4, activation)
    if expected is not None:
        ctx.check_close(out, expected, rtol=1e-9, atol=1e-9)


@case("gradcheck-float64")
def encoder_layer_gradcheck(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    layer = torch.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)
    layer = layer.to(device=ctx.device, dtype=torch.float64)
    gradcheck(ctx, layer, ctx.rng.standard_normal((3, 2, 4)))


# The study's kinds of paths (issue #33): the refusals with class and message (an unknown
# activation; heads that do not divide d_model; an input of another width), the layer
# through a saved state dict, the full grid of norm_first x batch_first x activation
# against the float64 reference, vmap over unbatched samples, and second derivatives.
@sweep("raises-{arg}", arg=["activation", "heads", "input-width"])
def encoder_layer_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    if arg == "activation":
        refusal(
            ctx,
            lambda: torch.nn.TransformerEncoderLayer(8, 2, activation="swish"),
            RuntimeError,
            "activation should be relu/gelu, not swish",
        )
    elif arg == "heads":
        refusal(
            ctx,
            lambda: torch.nn.TransformerEncoderLayer(10, 3),
            AssertionError,
            "embed_dim must be divisible by num_heads",
        )
    else:
        layer = _layer(ctx)
        x = ctx.put(np.zeros((3, 2, 12), dtype="float32"))
        refusal(
            ctx,
            lambda: layer(x),
            AssertionError,
            "was expecting embedding dimension of 16, but got 12",
        )


@case("checkpoint-state-dict-saved")
def encoder_layer_restore(ctx):
    import torch
    from _torchhelp import saved

    source = _layer(ctx, "float64")
    checkpoint = saved(source.state_dict())
    target = torch.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0)
    target = target.to(device=ctx.device, dtype=torch.float64).eval()
    ctx.measure(target.load_state_dict, checkpoint, warm=False)
    x_np = ctx.rng.standard_normal((5, 2, 16))
    with torch.no_grad():
        out = target(ctx.put(x_np))
    params = {n: ctx.to_numpy(t).astype("float64") for n, t in source.named_parameters()}
    ctx.check_close(out, encoder_layer(x_np, params, 4), rtol=1e-9, atol=1e-9)


@sweep(
    "flags-{norm}-{layout}-{activation}",
    norm=["post-norm", "pre-norm"],
    layout=["seq-first", "batch-first"],
    activation=["relu", "gelu"],
)
def encoder_layer_grid(ctx, norm, layout, activation):
    import torch

    layer = _layer(
        ctx,
        "float64",
        norm_first=norm == "pre-norm",
        batch_first=layout == "batch-first",
        activation=activation,
    )
    x_np = ctx.rng.standard_normal((5, 2, 16))
    x = ctx.put(x_np)
    if layout == "batch-first":
        x = x.transpose(0, 1)
    with torch.no_grad():
        out = ctx.measure(layer, x)
    if layout == "batch-first":
        out = out.transpose(0, 1)
    params = {n: ctx.to_numpy(t).astype("float64") for n, t in layer.named_parameters()}
    act = _gelu if activation == "gelu" else (lambda z: np.maximum(z, 0))
    expected = (
        _pre_norm(x_np, params, 4, act)
        if norm == "pre-norm"
        else encoder_layer(x_np, params, 4, act)
    )
    ctx.check_close(out, expected, rtol=1e-9, atol=1e-9)


@case("vmap-unbatched-samples")
def encoder_layer_vmap(ctx):
    import torch
    from _torchhelp import vmap

    if not ctx.version_at_least("1.11"):
        ctx.skip(f"unbatched TransformerEncoderLayer inputs arrived in torch 1.11 ({ctx.version})")
    layer = _layer(ctx, "float64")
    x_np = ctx.rng.standard_normal((3, 5, 16))  # a vmapped batch of (S, E) samples
    with torch.no_grad():
        out = ctx.measure(vmap(ctx)(layer), ctx.put(x_np))
    params = {n: ctx.to_numpy(t).astype("float64") for n, t in layer.named_parameters()}
    expected = encoder_layer(x_np.transpose(1, 0, 2), params, 4).transpose(1, 0, 2)
    ctx.check_close(out, expected, rtol=1e-9, atol=1e-9)


@case("grad2-gradgradcheck")
def encoder_layer_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    torch.manual_seed(ctx.seed)
    layer = torch.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)
    layer = layer.to(device=ctx.device, dtype=torch.float64)
    gradgradcheck(ctx, layer, ctx.rng.standard_normal((3, 2, 4)))
