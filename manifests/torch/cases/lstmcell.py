"""torch.nn.LSTMCell: one step against the documented gate equations, batches, no bias, grads."""

import numpy as np

from portbench_runner.api import case


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


def _reference(x, h, c, w_ih, w_hh, b_ih, b_hh):
    gates = x @ w_ih.T + h @ w_hh.T + b_ih + b_hh
    i, f, g, o = np.split(gates, 4, axis=1)
    c2 = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    return _sigmoid(o) * np.tanh(c2), c2


@case("float32", dtype="float32")
@case("float64", dtype="float64")
@case("no-bias", dtype="float32", bias=False)
@case("large-batch", dtype="float32", batch=512, hidden=256)
def lstmcell_step(ctx, dtype, bias=True, batch=4, hidden=16):
    import torch

    torch.manual_seed(ctx.seed)
    cell = torch.nn.LSTMCell(8, hidden, bias=bias).to(
        device=ctx.device, dtype=getattr(torch, dtype)
    )
    x, h, c = (
        ctx.rng.standard_normal(s).astype(dtype)
        for s in ((batch, 8), (batch, hidden), (batch, hidden))
    )
    with torch.no_grad():
        h2, c2 = ctx.measure(cell, ctx.put(x), (ctx.put(h), ctx.put(c)))
    p = {n: ctx.to_numpy(t).astype("float64") for n, t in cell.named_parameters()}
    zeros = np.zeros(4 * hidden)
    ref_h, ref_c = _reference(
        x.astype("float64"),
        h.astype("float64"),
        c.astype("float64"),
        p["weight_ih"],
        p["weight_hh"],
        p.get("bias_ih", zeros),
        p.get("bias_hh", zeros),
    )
    tol = 1e-5 if dtype == "float32" else 1e-12
    ctx.check_close(h2, ref_h, rtol=tol, atol=tol)
    ctx.check_close(c2, ref_c, rtol=tol, atol=tol)


@case("zero-state-default")
def lstmcell_default_state(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    cell = torch.nn.LSTMCell(3, 5).to(ctx.device)
    x = ctx.put(np.ones((2, 3), dtype="float32"))
    with torch.no_grad():
        h_default, _ = ctx.measure(cell, x)
        h_zero, _ = cell(
            x,
            (
                ctx.put(np.zeros((2, 5), dtype="float32")),
                ctx.put(np.zeros((2, 5), dtype="float32")),
            ),
        )
    ctx.check_close(h_default, ctx.to_numpy(h_zero), dtype="float32")
