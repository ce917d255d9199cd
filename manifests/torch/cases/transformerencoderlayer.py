"""torch.nn.TransformerEncoderLayer: eval-mode output against a NumPy post-norm reference
(attention, feed-forward, layer norms), batch_first, masks, autograd."""

import numpy as np
from _attention import encoder_layer

from portbench_runner.api import case


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
