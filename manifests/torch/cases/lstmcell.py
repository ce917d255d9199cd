"""torch.nn.LSTMCell: one step against the documented gate equations, batches, no bias, grads."""

import numpy as np
from _torchhelp import FLOAT_DTYPES, MODES, NET_TOL, gradcheck, param_values

from portbench_runner.api import case, sweep


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


def _cell_reference(ctx, cell, x, h, c):
    """The gate equations in float64 from the cell's parameters and the device's inputs."""
    p = {n: ctx.to_numpy(t).astype("float64") for n, t in cell.named_parameters()}
    hidden = p["weight_hh"].shape[1]
    zeros = np.zeros(4 * hidden)
    host = [np.asarray(ctx.to_numpy(t)).astype("float64") for t in (x, h, c)]
    return _reference(
        *host, p["weight_ih"], p["weight_hh"], p.get("bias_ih", zeros), p.get("bias_hh", zeros)
    )


# Every float dtype LSTMCell runs in on the CPU, eager and compiled, with and without bias.
@sweep(
    "{dtype}-{bias}-{mode}-sweep",
    dtype=FLOAT_DTYPES,
    bias=["bias", "no-bias"],
    mode=MODES,
    exclude=[{"bias": "no-bias", "mode": "compiled"}],  # compiling costs seconds a case
)
def lstmcell_dtypes(ctx, dtype, bias, mode):
    import torch

    torch.manual_seed(ctx.seed)
    dt = getattr(torch, dtype)
    cell = torch.nn.LSTMCell(8, 12, bias=bias == "bias").to(device=ctx.device, dtype=dt)
    x, h, c = (
        ctx.put(param_values(dtype, ctx.rng.standard_normal(s)), dtype=dtype)
        for s in ((5, 8), (5, 12), (5, 12))
    )
    with torch.no_grad():
        h2, c2 = ctx.measure(ctx.in_mode(mode, cell), x, (h, c))
    ctx.check(h2.dtype == dt and c2.dtype == dt, f"LSTMCell returned {h2.dtype}, {c2.dtype}")
    ref_h, ref_c = _cell_reference(ctx, cell, x, h, c)
    # Gates sum 20 products and pass through sigmoid/tanh: a few roundings of the dtype.
    r = NET_TOL[dtype]
    ctx.check_close(h2, ref_h, rtol=r, atol=r, what="h")
    ctx.check_close(c2, ref_c, rtol=r, atol=r, what="c")


@sweep("{form}-form", form=["unbatched", "zero-batch", "non-contiguous", "chained-steps"])
def lstmcell_forms(ctx, form):
    import torch

    torch.manual_seed(ctx.seed)
    cell = torch.nn.LSTMCell(6, 4).to(device=ctx.device, dtype=torch.float64)
    x_np = ctx.rng.standard_normal((3, 6))
    zeros = np.zeros((3, 4))
    with torch.no_grad():
        if form == "unbatched":
            if not ctx.version_at_least("1.11"):
                ctx.skip(f"unbatched (1-d) LSTMCell inputs arrived in torch 1.11 ({ctx.version})")
            # A 1-d input is one sample: the state comes back 1-d.
            h2, c2 = ctx.measure(cell, ctx.put(x_np[0]))
            ctx.check(tuple(h2.shape) == (4,), f"unbatched h has shape {tuple(h2.shape)}")
            ref_h, ref_c = _cell_reference(
                ctx, cell, ctx.put(x_np[:1]), ctx.put(zeros[:1]), ctx.put(zeros[:1])
            )
            ref_h, ref_c = ref_h[0], ref_c[0]
        elif form == "zero-batch":
            h2, c2 = ctx.measure(cell, ctx.put(np.zeros((0, 6))))
            ref_h, ref_c = np.zeros((0, 4)), np.zeros((0, 4))
        elif form == "non-contiguous":
            wide = ctx.put(ctx.rng.standard_normal((6, 3))).t()  # (3, 6) with strides (1, 3)
            ctx.check(not wide.is_contiguous(), "the input is a non-contiguous view", "other")
            h2, c2 = ctx.measure(cell, wide)
            zero = ctx.put(zeros)
            ref_h, ref_c = _cell_reference(ctx, cell, wide, zero, zero)
        else:
            # Three steps feeding the state back agree with the reference applied three times.
            xs = [ctx.put(ctx.rng.standard_normal((3, 6))) for _ in range(3)]

            def run():
                state = None
                for x in xs:
                    state = cell(x, state)
                return state

            h2, c2 = ctx.measure(run)
            h, c = ctx.put(zeros), ctx.put(zeros)
            for x in xs:
                ref_h, ref_c = _cell_reference(ctx, cell, x, h, c)
                h, c = ctx.put(ref_h), ctx.put(ref_c)
    ctx.check_close(h2, ref_h, dtype="float64", what="h")
    ctx.check_close(c2, ref_c, dtype="float64", what="c")


@case("gradcheck-float64")
def lstmcell_gradcheck(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    cell = torch.nn.LSTMCell(3, 2).to(device=ctx.device, dtype=torch.float64)

    def fn(x, h, c):
        h2, c2 = cell(x, (h, c))
        return h2, c2

    gradcheck(ctx, fn, *(ctx.rng.standard_normal(s) for s in ((2, 3), (2, 2), (2, 2))))


# The study's kinds of paths (issue #33): the refusals of inconsistent sizes (class and
# message), the full grid of bias x given state x batched input, vmap over unbatched
# samples, second derivatives, and the cell through a saved state dict.
@sweep("raises-{arg}", arg=["input-size", "hidden-size"])
def lstmcell_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    cell = torch.nn.LSTMCell(8, 4).to(ctx.device)
    if arg == "input-size":
        x = ctx.put(np.zeros((2, 5), dtype="float32"))
        refusal(ctx, lambda: cell(x), RuntimeError, "input has inconsistent input_size")
    else:
        x, h = (
            ctx.put(np.zeros((2, 8), dtype="float32")),
            ctx.put(np.zeros((2, 3), dtype="float32")),
        )
        refusal(ctx, lambda: cell(x, (h, h)), RuntimeError, "hidden0 has inconsistent hidden_size")


@sweep(
    "flags-{bias}-{state}-{batch}",
    bias=["bias", "no-bias"],
    state=["given-state", "zero-state"],
    batch=["batched", "unbatched"],
)
def lstmcell_grid(ctx, bias, state, batch):
    import torch

    if batch == "unbatched" and not ctx.version_at_least("1.11"):
        ctx.skip(f"unbatched (1-d) LSTMCell inputs arrived in torch 1.11 ({ctx.version})")
    torch.manual_seed(ctx.seed)
    cell = torch.nn.LSTMCell(5, 3, bias=bias == "bias").to(device=ctx.device, dtype=torch.float64)
    n = 4
    x_np = ctx.rng.standard_normal((n, 5))
    h_np, c_np = ctx.rng.standard_normal((n, 3)), ctx.rng.standard_normal((n, 3))
    if state == "zero-state":
        h_np, c_np = np.zeros((n, 3)), np.zeros((n, 3))
    ref_h, ref_c = _cell_reference(ctx, cell, ctx.put(x_np), ctx.put(h_np), ctx.put(c_np))
    if batch == "unbatched":
        x_np, h_np, c_np, ref_h, ref_c = x_np[0], h_np[0], c_np[0], ref_h[0], ref_c[0]
    args = (
        (ctx.put(x_np),)
        if state == "zero-state"
        else (ctx.put(x_np), (ctx.put(h_np), ctx.put(c_np)))
    )
    with torch.no_grad():
        h2, c2 = ctx.measure(cell, *args)
    ctx.check_close(h2, ref_h, dtype="float64", what="h")
    ctx.check_close(c2, ref_c, dtype="float64", what="c")


@case("vmap-unbatched-samples")
def lstmcell_vmap(ctx):
    import torch
    from _torchhelp import vmap

    torch.manual_seed(ctx.seed)
    cell = torch.nn.LSTMCell(5, 3).to(device=ctx.device, dtype=torch.float64)
    x_np, h_np, c_np = (ctx.rng.standard_normal(s) for s in ((6, 5), (6, 3), (6, 3)))
    x, h, c = ctx.put(x_np), ctx.put(h_np), ctx.put(c_np)
    with torch.no_grad():
        h2, c2 = ctx.measure(vmap(ctx)(lambda a, b, d: cell(a, (b, d))), x, h, c)
    ref_h, ref_c = _cell_reference(ctx, cell, x, h, c)
    ctx.check_close(h2, ref_h, dtype="float64", what="h")
    ctx.check_close(c2, ref_c, dtype="float64", what="c")


@case("grad2-gradgradcheck")
def lstmcell_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    torch.manual_seed(ctx.seed)
    cell = torch.nn.LSTMCell(3, 2).to(device=ctx.device, dtype=torch.float64)
    gradgradcheck(
        ctx,
        lambda x, h, c: cell(x, (h, c)),
        *(ctx.rng.standard_normal(s) for s in ((2, 3), (2, 2), (2, 2))),
    )


@case("checkpoint-state-dict-saved")
def lstmcell_restore(ctx):
    import torch
    from _torchhelp import saved

    torch.manual_seed(ctx.seed)
    source = torch.nn.LSTMCell(4, 3).to(device=ctx.device, dtype=torch.float64)
    checkpoint = saved(source.state_dict())
    torch.manual_seed(ctx.seed + 1)
    target = torch.nn.LSTMCell(4, 3).to(device=ctx.device, dtype=torch.float64)
    ctx.measure(target.load_state_dict, checkpoint, warm=False)
    x, h, c = (ctx.put(ctx.rng.standard_normal(s)) for s in ((2, 4), (2, 3), (2, 3)))
    with torch.no_grad():
        h2, c2 = target(x, (h, c))
    ref_h, ref_c = _cell_reference(ctx, source, x, h, c)
    ctx.check_close(h2, ref_h, dtype="float64", what="h")
    ctx.check_close(c2, ref_c, dtype="float64", what="c")
