"""torch.nn.Transformer: encoder-decoder forward shapes, determinism in eval, causal target
masks, batch_first, and a training step that reduces the loss."""

import numpy as np
from _attention import encoder_layer, layer_norm
from _torchhelp import FLOAT_DTYPES, MODES, NET_TOL, gradcheck, param_values

from portbench_runner.api import case, sweep


def _model(ctx, **kwargs):
    import torch

    torch.manual_seed(ctx.seed)
    model = torch.nn.Transformer(
        d_model=32,
        nhead=4,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=64,
        dropout=0.0,
        **kwargs,
    )
    return model.to(ctx.device).eval()


@case("forward-shape-and-determinism")
def transformer_forward(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    model = _model(ctx)
    src, tgt = (
        ctx.put(ctx.rng.standard_normal((12, 2, 32)).astype("float32")),
        ctx.put(ctx.rng.standard_normal((7, 2, 32)).astype("float32")),
    )
    with torch.no_grad():
        out = ctx.measure(model, src, tgt)
        again = model(src, tgt)
    ctx.check(tuple(out.shape) == (7, 2, 32), f"shape {tuple(out.shape)}")
    ctx.check_equal(ctx.to_numpy(out), ctx.to_numpy(again))


@case("causal-target-mask")
def transformer_causal(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    model = _model(ctx)
    src = ctx.put(ctx.rng.standard_normal((5, 1, 32)).astype("float32"))
    tgt = ctx.rng.standard_normal((6, 1, 32)).astype("float32")
    changed = tgt.copy()
    changed[3:] -= 4.0
    mask = ctx.put(np.triu(np.full((6, 6), -np.inf, dtype="float32"), 1))
    with torch.no_grad():
        out = ctx.measure(model, src, ctx.put(tgt), tgt_mask=mask)
        other = model(src, ctx.put(changed), tgt_mask=mask)
    ctx.check_close(
        ctx.to_numpy(other)[:3], ctx.to_numpy(out)[:3], dtype="float32", rtol=1e-5, atol=1e-5
    )


@case("batch-first")
def transformer_batch_first(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    model = _model(ctx, batch_first=True)
    with torch.no_grad():
        out = ctx.measure(
            model,
            ctx.put(np.zeros((3, 9, 32), dtype="float32")),
            ctx.put(np.zeros((3, 4, 32), dtype="float32")),
        )
    ctx.check(tuple(out.shape) == (3, 4, 32), f"shape {tuple(out.shape)}")


@case("training-step-reduces-loss")
def transformer_train(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    model = _model(ctx).train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    src, tgt = (
        ctx.put(ctx.rng.standard_normal((8, 4, 32)).astype("float32")),
        ctx.put(ctx.rng.standard_normal((8, 4, 32)).astype("float32")),
    )

    def step():
        opt.zero_grad()
        loss = ((model(src, tgt) - tgt) ** 2).mean()
        loss.backward()
        opt.step()
        return loss.detach()

    first = float(ctx.measure(step, warm=False))
    for _ in range(20):
        last = float(step())
    ctx.check(last < first, f"loss went from {first} to {last}")


def _mha(q_x, kv_x, p, prefix, heads, mask=None):
    """Multi-head attention of queries q_x (T, N, E) over keys/values kv_x (S, N, E)."""
    t, n, e = q_x.shape
    d = e // heads
    w, b = p[prefix + "in_proj_weight"], p[prefix + "in_proj_bias"]
    q = q_x @ w[:e].T + b[:e]
    k = kv_x @ w[e : 2 * e].T + b[e : 2 * e]
    v = kv_x @ w[2 * e :].T + b[2 * e :]

    def heads_first(z):
        return z.reshape(z.shape[0], n, heads, d).transpose(1, 2, 0, 3)

    scores = heads_first(q) @ heads_first(k).transpose(0, 1, 3, 2) / np.sqrt(d)
    if mask is not None:
        scores = scores + mask
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = scores / scores.sum(axis=-1, keepdims=True)
    out = (weights @ heads_first(v)).transpose(2, 0, 1, 3).reshape(t, n, e)
    return out @ p[prefix + "out_proj.weight"].T + p[prefix + "out_proj.bias"]


def _transformer_reference(src, tgt, p, heads=4, layers=2, tgt_mask=None):
    """The post-norm encoder-decoder in float64, from the model's named parameters."""

    def sub(prefix):
        return {k[len(prefix) :]: v for k, v in p.items() if k.startswith(prefix)}

    def norm(x, q, name):
        return layer_norm(x, q[name + ".weight"], q[name + ".bias"])

    def ff(x, q):
        hidden = np.maximum(x @ q["linear1.weight"].T + q["linear1.bias"], 0)
        return hidden @ q["linear2.weight"].T + q["linear2.bias"]

    memory = src
    for i in range(layers):
        memory = encoder_layer(memory, sub(f"encoder.layers.{i}."), heads)
    memory = norm(memory, p, "encoder.norm")
    x = tgt
    for i in range(layers):
        q = sub(f"decoder.layers.{i}.")
        x = norm(x + _mha(x, x, q, "self_attn.", heads, tgt_mask), q, "norm1")
        x = norm(x + _mha(x, memory, q, "multihead_attn.", heads), q, "norm2")
        x = norm(x + ff(x, q), q, "norm3")
    return norm(x, p, "decoder.norm")


def _causal(n):
    return np.triu(np.full((n, n), -np.inf), 1)


# Every float dtype the model runs in on the CPU, eager and compiled, with a causal target
# mask, against the float64 NumPy encoder-decoder built from the model's own parameters.
@sweep("{dtype}-{mode}-sweep", dtype=FLOAT_DTYPES, mode=MODES)
def transformer_dtypes(ctx, dtype, mode):
    import torch

    dt = getattr(torch, dtype)
    model = _model(ctx).to(dt)
    src = ctx.put(param_values(dtype, ctx.rng.standard_normal((6, 2, 32))), dtype=dtype)
    tgt = ctx.put(param_values(dtype, ctx.rng.standard_normal((5, 2, 32))), dtype=dtype)
    mask = ctx.put(_causal(5), dtype=dtype)
    with torch.no_grad():
        out = ctx.measure(ctx.in_mode(mode, model), src, tgt, tgt_mask=mask)
    ctx.check(out.dtype == dt, f"the model returned {out.dtype}")
    params = {n: ctx.to_numpy(t).astype("float64") for n, t in model.named_parameters()}
    host = [np.asarray(ctx.to_numpy(t)).astype("float64") for t in (src, tgt)]
    expected = _transformer_reference(*host, params, tgt_mask=_causal(5))
    ctx.check_close(out, expected, rtol=NET_TOL[dtype], atol=NET_TOL[dtype])


@sweep(
    "{form}-form",
    form=[
        "square-subsequent-mask",
        "memory-key-padding-mask",
        "tgt-key-padding-mask",
        "unbatched",
        "batch-first-matches",
    ],
)
def transformer_forms(ctx, form):
    import torch

    model = _model(ctx).to(torch.float64)
    src_np = ctx.rng.standard_normal((6, 2, 32))
    tgt_np = ctx.rng.standard_normal((4, 2, 32))
    src, tgt = ctx.put(src_np), ctx.put(tgt_np)
    params = {n: ctx.to_numpy(t).astype("float64") for n, t in model.named_parameters()}
    with torch.no_grad():
        if form == "square-subsequent-mask":
            # The helper's mask is the causal mask: 0 on and below the diagonal, -inf above.
            mask = ctx.measure(model.generate_square_subsequent_mask, 4)
            ctx.check_equal(ctx.to_numpy(mask).astype("float64"), _causal(4).astype("float64"))
            return
        if form == "unbatched":
            if not ctx.version_at_least("1.11"):
                ctx.skip(f"unbatched Transformer inputs arrived in torch 1.11 ({ctx.version})")
            out = ctx.measure(model, src[:, 0], tgt[:, 0])
            expected = _transformer_reference(src_np[:, :1], tgt_np[:, :1], params)[:, 0]
        elif form == "batch-first-matches":
            other = _model(ctx, batch_first=True).to(torch.float64)
            other.load_state_dict(model.state_dict())
            out = ctx.measure(other, src.transpose(0, 1), tgt.transpose(0, 1)).transpose(0, 1)
            expected = _transformer_reference(src_np, tgt_np, params)
        else:
            # A padded position changes nothing the mask hides: alter it and compare.
            key = "memory" if form.startswith("memory") else "tgt"
            pad = np.zeros((2, 6 if key == "memory" else 4), dtype=bool)
            pad[:, -1] = True
            changed_src, changed_tgt = src_np.copy(), tgt_np.copy()
            (changed_src if key == "memory" else changed_tgt)[-1] += 4.0
            kwargs = {f"{key}_key_padding_mask": ctx.put(pad)}
            if key == "tgt":
                kwargs["tgt_mask"] = ctx.put(_causal(4))  # so the last target hides from the rest
            else:
                kwargs["src_key_padding_mask"] = kwargs["memory_key_padding_mask"]  # encoder too
            out = ctx.measure(model, src, tgt, **kwargs)
            again = model(ctx.put(changed_src), ctx.put(changed_tgt), **kwargs)
            rows = slice(None) if key == "memory" else slice(0, 3)
            ctx.check_close(ctx.to_numpy(again)[rows], ctx.to_numpy(out)[rows], dtype="float64")
            return
    ctx.check_close(out, expected, rtol=1e-9, atol=1e-9)


@case("gradcheck-float64")
def transformer_gradcheck(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    model = torch.nn.Transformer(
        d_model=4,
        nhead=2,
        num_encoder_layers=1,
        num_decoder_layers=1,
        dim_feedforward=8,
        dropout=0.0,
    ).to(device=ctx.device, dtype=torch.float64)
    gradcheck(ctx, model, ctx.rng.standard_normal((3, 1, 4)), ctx.rng.standard_normal((2, 1, 4)))


# The study's kinds of paths (issue #33): the refusals with class and message (heads that do
# not divide d_model; source and target batches or widths that disagree), the model through
# a saved state dict, and the full grid of norm_first x batch_first against the float64
# encoder-decoder (pre-norm: each sublayer normalizes its input; final norms kept).
@sweep("raises-{arg}", arg=["heads", "batch-mismatch", "d-model-mismatch"])
def transformer_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    if arg == "heads":
        refusal(
            ctx,
            lambda: torch.nn.Transformer(d_model=10, nhead=3),
            AssertionError,
            "embed_dim must be divisible by num_heads",
        )
        return
    model = _model(ctx)
    src = ctx.put(np.zeros((3, 2, 32), dtype="float32"))
    if arg == "batch-mismatch":
        tgt, fragment = (
            ctx.put(np.zeros((3, 3, 32), dtype="float32")),
            "the batch number of src and tgt must be equal",
        )
    else:
        src = ctx.put(np.zeros((3, 2, 16), dtype="float32"))
        tgt, fragment = src, "the feature number of src and tgt must be equal to d_model"
    refusal(ctx, lambda: model(src, tgt), RuntimeError, fragment)


@case("checkpoint-state-dict-saved")
def transformer_restore(ctx):
    import torch
    from _torchhelp import saved

    source = _model(ctx).to(torch.float64)
    checkpoint = saved(source.state_dict())
    torch.manual_seed(ctx.seed + 1)
    target = (
        torch.nn.Transformer(
            d_model=32,
            nhead=4,
            num_encoder_layers=2,
            num_decoder_layers=2,
            dim_feedforward=64,
            dropout=0.0,
        )
        .to(device=ctx.device, dtype=torch.float64)
        .eval()
    )
    ctx.measure(target.load_state_dict, checkpoint, warm=False)
    src_np, tgt_np = ctx.rng.standard_normal((5, 2, 32)), ctx.rng.standard_normal((4, 2, 32))
    with torch.no_grad():
        out = target(ctx.put(src_np), ctx.put(tgt_np))
    params = {n: ctx.to_numpy(t).astype("float64") for n, t in source.named_parameters()}
    ctx.check_close(out, _transformer_reference(src_np, tgt_np, params), rtol=1e-9, atol=1e-9)


def _pre_norm_reference(src, tgt, p, heads=4, layers=2):
    """norm_first=True: x + sublayer(norm(x)) in every layer, then the final norms."""

    def sub(prefix):
        return {k[len(prefix) :]: v for k, v in p.items() if k.startswith(prefix)}

    def norm(x, q, name):
        return layer_norm(x, q[name + ".weight"], q[name + ".bias"])

    def ff(x, q):
        hidden = np.maximum(x @ q["linear1.weight"].T + q["linear1.bias"], 0)
        return hidden @ q["linear2.weight"].T + q["linear2.bias"]

    memory = src
    for i in range(layers):
        q = sub(f"encoder.layers.{i}.")
        y = norm(memory, q, "norm1")
        memory = memory + _mha(y, y, q, "self_attn.", heads)
        memory = memory + ff(norm(memory, q, "norm2"), q)
    memory = norm(memory, p, "encoder.norm")
    x = tgt
    for i in range(layers):
        q = sub(f"decoder.layers.{i}.")
        y = norm(x, q, "norm1")
        x = x + _mha(y, y, q, "self_attn.", heads)
        x = x + _mha(norm(x, q, "norm2"), memory, q, "multihead_attn.", heads)
        x = x + ff(norm(x, q, "norm3"), q)
    return norm(x, p, "decoder.norm")


@sweep("flags-{norm}-{layout}", norm=["post-norm", "pre-norm"], layout=["seq-first", "batch-first"])
def transformer_grid(ctx, norm, layout):
    import torch

    model = _model(ctx, norm_first=norm == "pre-norm", batch_first=layout == "batch-first")
    model = model.to(torch.float64)
    src_np, tgt_np = ctx.rng.standard_normal((5, 2, 32)), ctx.rng.standard_normal((4, 2, 32))
    src, tgt = ctx.put(src_np), ctx.put(tgt_np)
    if layout == "batch-first":
        src, tgt = src.transpose(0, 1), tgt.transpose(0, 1)
    with torch.no_grad():
        out = ctx.measure(model, src, tgt)
    if layout == "batch-first":
        out = out.transpose(0, 1)
    params = {n: ctx.to_numpy(t).astype("float64") for n, t in model.named_parameters()}
    ref = _pre_norm_reference if norm == "pre-norm" else _transformer_reference
    ctx.check_close(out, ref(src_np, tgt_np, params), rtol=1e-9, atol=1e-9)
