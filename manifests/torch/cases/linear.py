"""torch.nn.Linear: forward against x @ W.T + b, no-bias, batched shapes, backward, dtypes."""

import numpy as np
from _torchhelp import COMPLEXES, EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


def _layer(ctx, torch, dtype, bias=True):
    layer = torch.nn.Linear(64, 32, bias=bias)
    return layer.to(device=ctx.device, dtype=getattr(torch, dtype))


@case("float32-forward", dtype="float32")
@case("float64-forward", dtype="float64")
@case("bfloat16-forward", dtype="bfloat16")
@case("float32-no-bias", dtype="float32", bias=False)
@case("float32-batched-3d", dtype="float32", shape=(4, 16, 64))
def linear_forward(ctx, dtype, bias=True, shape=(128, 64)):
    import torch

    torch.manual_seed(ctx.seed)
    layer = _layer(ctx, torch, dtype, bias)
    x = ctx.rng.standard_normal(shape).astype("float32")
    with torch.no_grad():
        out = ctx.measure(layer, ctx.put(x, dtype=dtype))
    weight = ctx.to_numpy(layer.weight).astype("float64")
    expected = ctx.to_numpy(ctx.put(x, dtype=dtype)).astype("float64") @ weight.T
    if bias:
        expected = expected + ctx.to_numpy(layer.bias).astype("float64")
    rtol = {"float32": 1e-4, "float64": 1e-10, "bfloat16": 3e-2}[dtype]
    ctx.check_close(out, expected, rtol=rtol, atol=rtol * 10)


@case("float32-backward")
def linear_backward(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    layer = _layer(ctx, torch, "float32")
    x = ctx.rng.standard_normal((16, 64)).astype("float32")
    inputs = ctx.put(x)

    def step():
        layer.zero_grad()
        layer(inputs).sum().backward()
        return layer.weight.grad, layer.bias.grad

    grad_w, grad_b = ctx.measure(step)
    # d(sum(x W^T + b))/dW = column sums of x broadcast over outputs; d/db = batch size.
    ctx.check_close(grad_w, np.tile(x.astype("float64").sum(axis=0), (32, 1)), rtol=1e-4, atol=1e-4)
    ctx.check_close(grad_b, np.full(32, 16.0), dtype="float32")


@case("empty-batch")
def linear_empty(ctx):
    import torch

    layer = _layer(ctx, torch, "float32")
    with torch.no_grad():
        out = ctx.measure(layer, ctx.put(np.zeros((0, 64), dtype="float32")))
    ctx.check_equal(np.array(out.shape), np.array([0, 32]))


def _set_params(ctx, layer, dtype, in_f, out_f):
    """Weights drawn on the host (complex ones with an imaginary part), copied into the layer;
    returns their exact values as float64/complex128."""
    import torch
    from _torchhelp import draw, placed

    w, w_h = placed(ctx, draw(ctx, (out_f, in_f), dtype, -1, 1), dtype)
    b, b_h = placed(ctx, draw(ctx, (out_f,), dtype, -1, 1), dtype)
    with torch.no_grad():
        layer.weight.copy_(w)
        layer.bias.copy_(b)
    return w_h, b_h


# Every dtype nn.Linear takes on the CPU (integer weights cannot be initialised), in each mode.
@sweep("{dtype}-{mode}-sweep", dtype=HALF_FLOATS + FULL_FLOATS + COMPLEXES, mode=EAGER_COMPILED)
def linear_dtypes(ctx, dtype, mode):
    import torch
    from _torchhelp import RTOL, draw, placed

    layer = torch.nn.Linear(16, 8).to(device=ctx.device, dtype=getattr(torch, dtype))
    w_h, b_h = _set_params(ctx, layer, dtype, 16, 8)
    x, x_h = placed(ctx, draw(ctx, (12, 16), dtype, -1, 1), dtype)
    with torch.no_grad():
        out = ctx.measure(ctx.in_mode(mode, layer), x)
    ctx.check(out.dtype == x.dtype, f"dtype {out.dtype}, not {x.dtype}")
    r = RTOL[dtype] * 10  # a 16-term dot product per output
    ctx.check_close(out, x_h @ w_h.T + b_h, rtol=r, atol=r)


# Gradients of weight, bias and input against the closed form, in each real dtype.
@sweep("grad-{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS)
def linear_grad_dtypes(ctx, dtype):
    import torch
    from _torchhelp import RTOL, draw, placed

    layer = torch.nn.Linear(16, 8).to(device=ctx.device, dtype=getattr(torch, dtype))
    w_h, _ = _set_params(ctx, layer, dtype, 16, 8)
    x, x_h = placed(ctx, draw(ctx, (6, 16), dtype, -1, 1), dtype, requires_grad=True)
    g, g_h = placed(ctx, draw(ctx, (6, 8), dtype, -1, 1), dtype)

    def backward():
        layer.zero_grad()
        x.grad = None
        (layer(x) * g).sum().backward()
        return x.grad, layer.weight.grad, layer.bias.grad

    gx, gw, gb = ctx.measure(backward)
    r = RTOL[dtype] * 10
    ctx.check_close(gx, g_h @ w_h, rtol=r, atol=r, what="input grad")
    ctx.check_close(gw, g_h.T @ x_h, rtol=r, atol=r, what="weight grad")
    ctx.check_close(gb, g_h.sum(axis=0), rtol=r, atol=r, what="bias grad")


@sweep("gradcheck-{dtype}-sweep", dtype=["float64", "complex128"])
def linear_gradcheck(ctx, dtype):
    import torch

    layer = torch.nn.Linear(5, 3).to(device=ctx.device, dtype=getattr(torch, dtype))
    _set_params(ctx, layer, dtype, 5, 3)
    x = ctx.put(ctx.rng.standard_normal((4, 5)), dtype=dtype, requires_grad=True)
    ok = ctx.measure(
        torch.autograd.gradcheck, layer, (x,), warm=False
    )  # inputs only: the parameters are checked by the closed-form sweep
    ctx.check(ok, "gradcheck failed")


@sweep("{form}-sweep", form=["one-d-input", "non-contiguous", "zero-in-features", "functional"])
def linear_forms(ctx, form):
    import torch
    import torch.nn.functional as F

    layer = torch.nn.Linear(6, 4).to(ctx.device)
    w_h, b_h = _set_params(ctx, layer, "float32", 6, 4)
    x_np = ctx.rng.standard_normal((10, 6)).astype("float32")
    x = ctx.put(x_np)
    with torch.no_grad():
        if form == "one-d-input":
            out, expected = ctx.measure(layer, x[0]), x_np[0] @ w_h.T + b_h
        elif form == "non-contiguous":
            view = ctx.put(np.ascontiguousarray(x_np.T)).t()[::2]
            ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
            out, expected = ctx.measure(layer, view), x_np[::2] @ w_h.T + b_h
        elif form == "zero-in-features":
            # Linear(0, 4): no inputs to sum, so every row is the bias.
            empty = torch.nn.Linear(0, 4).to(ctx.device)
            out = ctx.measure(empty, ctx.put(np.zeros((3, 0), dtype="float32")))
            expected = np.tile(ctx.to_numpy(empty.bias).astype("float64"), (3, 1))
        else:
            out = ctx.measure(F.linear, x, layer.weight, layer.bias)
            expected = x_np @ w_h.T + b_h
    ctx.check_close(out, expected, rtol=1e-4, atol=1e-4)


# The study's kinds of paths (issue #33): the refusals (features that do not match; an
# input of another dtype, class only: the message changed between releases), the grid of
# bias x input rank, vmap over an ensemble of weights, second derivatives, and the layer
# through a saved state dict.
@sweep("raises-{arg}", arg=["in-features", "dtype-mismatch"])
def linear_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    layer = torch.nn.Linear(4, 3).to(ctx.device)
    if arg == "in-features":
        x = ctx.put(np.zeros((2, 5), dtype="float32"))
        refusal(ctx, lambda: layer(x), RuntimeError, "cannot be multiplied")
    else:
        x = ctx.put(np.zeros((2, 4), dtype="float64"))
        refusal(ctx, lambda: layer(x), RuntimeError)


@sweep("flags-{bias}-{rank}", bias=["bias", "no-bias"], rank=["1d", "2d", "3d"])
def linear_grid(ctx, bias, rank):
    import torch

    layer = torch.nn.Linear(5, 3, bias=bias == "bias").to(device=ctx.device, dtype=torch.float64)
    w_np = ctx.rng.standard_normal((3, 5))
    b_np = ctx.rng.standard_normal(3) if bias == "bias" else np.zeros(3)
    with torch.no_grad():
        layer.weight.copy_(ctx.put(w_np))
        if layer.bias is not None:
            layer.bias.copy_(ctx.put(b_np))
    shape = {"1d": (5,), "2d": (4, 5), "3d": (2, 3, 5)}[rank]
    x_np = ctx.rng.standard_normal(shape)
    with torch.no_grad():
        out = ctx.measure(layer, ctx.put(x_np))
    ctx.check_close(out, x_np @ w_np.T + b_np, dtype="float64", kind="reduction")


@case("vmap-ensemble-weights")
def linear_vmap(ctx):
    import torch.nn.functional as F
    from _torchhelp import vmap

    x_np = ctx.rng.standard_normal((6, 5))
    w_np, b_np = ctx.rng.standard_normal((4, 3, 5)), ctx.rng.standard_normal((4, 3))
    x = ctx.put(x_np)
    out = ctx.measure(vmap(ctx)(lambda w, b: F.linear(x, w, b)), ctx.put(w_np), ctx.put(b_np))
    expected = np.einsum("nf,kof->kno", x_np, w_np) + b_np[:, None, :]
    ctx.check_close(out, expected, dtype="float64", kind="reduction")


@case("grad2-gradgradcheck")
def linear_gradgrad(ctx):
    import torch.nn.functional as F
    from _torchhelp import gradgradcheck

    gradgradcheck(
        ctx,
        lambda x, w, b: F.linear(x, w, b) ** 2,
        ctx.rng.standard_normal((3, 4)),
        ctx.rng.standard_normal((2, 4)),
        ctx.rng.standard_normal(2),
    )


@case("checkpoint-state-dict-saved")
def linear_restore(ctx):
    import torch
    from _torchhelp import saved

    torch.manual_seed(ctx.seed)
    source = torch.nn.Linear(6, 4).to(device=ctx.device, dtype=torch.float64)
    checkpoint = saved(source.state_dict())
    torch.manual_seed(ctx.seed + 1)
    target = torch.nn.Linear(6, 4).to(device=ctx.device, dtype=torch.float64)
    ctx.measure(target.load_state_dict, checkpoint, warm=False)
    x_np = ctx.rng.standard_normal((5, 6))
    with torch.no_grad():
        out = target(ctx.put(x_np))
    w, b = ctx.to_numpy(source.weight.detach()), ctx.to_numpy(source.bias.detach())
    ctx.check_close(out, x_np @ w.T + b, dtype="float64", kind="reduction")
