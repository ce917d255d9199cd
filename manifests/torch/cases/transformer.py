"""torch.nn.Transformer: encoder-decoder forward shapes, determinism in eval, causal target
masks, batch_first, and a training step that reduces the loss."""

import numpy as np

from portbench_runner.api import case


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
