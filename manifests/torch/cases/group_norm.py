"""torch.nn.functional.group_norm: per-group normalization, affine weight/bias, eps, autograd."""

import numpy as np
from _torchhelp import EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


def _reference(x, groups, weight=None, bias=None, eps=1e-5):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    norm = (g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + eps)
    out = norm.reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape) + bias.reshape(shape)
    return out


@case("two-groups", groups=2)
@case("one-group-is-layer-norm", groups=1)
@case("groups-equal-channels", groups=8)
@case("float64", groups=4, dtype="float64")
@case("large", groups=8, shape=(16, 64, 32, 32))
def group_norm_values(ctx, groups, dtype="float32", shape=(4, 8, 5, 5)):
    import torch.nn.functional as F

    x = (ctx.rng.standard_normal(shape) * 3 + 1).astype(dtype)
    out = ctx.measure(F.group_norm, ctx.put(x), groups)
    ctx.check_close(out, _reference(x.astype("float64"), groups), rtol=1e-4, atol=1e-4)


@case("affine")
def group_norm_affine(ctx):
    import torch.nn.functional as F

    x = ctx.rng.standard_normal((2, 6, 3)).astype("float64")
    w, b = ctx.rng.standard_normal(6), ctx.rng.standard_normal(6)
    out = ctx.measure(F.group_norm, ctx.put(x), 3, ctx.put(w), ctx.put(b))
    ctx.check_close(out, _reference(x, 3, w, b), dtype="float64", atol=1e-9)


@case("grad-sums-to-zero-per-group")
def group_norm_grad(ctx):
    import torch.nn.functional as F

    x = ctx.put(ctx.rng.standard_normal((2, 4, 6)).astype("float64"), requires_grad=True)
    target = ctx.put(ctx.rng.standard_normal((2, 4, 6)))

    def backward():
        x.grad = None
        (F.group_norm(x, 2) * target).sum().backward()
        return x.grad

    grad = ctx.to_numpy(ctx.measure(backward)).reshape(2, 2, -1)
    ctx.check_close(grad.sum(axis=2), np.zeros((2, 2)), dtype="float64", atol=1e-9)


# Every float dtype group_norm takes on the CPU, affine, in each mode.
@sweep("{dtype}-{mode}-sweep", dtype=HALF_FLOATS + FULL_FLOATS, mode=EAGER_COMPILED)
def group_norm_dtypes(ctx, dtype, mode):
    import torch.nn.functional as F
    from _torchhelp import RTOL, draw, placed

    x, x_h = placed(ctx, draw(ctx, (3, 6, 4, 4), dtype, -2, 4), dtype)
    w, w_h = placed(ctx, draw(ctx, (6,), dtype, 0.5, 2), dtype)
    b, b_h = placed(ctx, draw(ctx, (6,), dtype, -1, 1), dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda t, ww, bb: F.group_norm(t, 3, ww, bb)), x, w, b)
    ctx.check(out.dtype == x.dtype, f"dtype {out.dtype}, not {x.dtype}")
    r = RTOL[dtype] * 10  # statistics over 32 elements per group
    ctx.check_close(out, _reference(x_h, 3, w_h, b_h), rtol=r, atol=r)


@sweep("grad-{dtype}-sweep", dtype=["float16", "bfloat16", "float32"])
def group_norm_grad_dtypes(ctx, dtype):
    import torch.nn.functional as F
    from _torchhelp import RTOL, draw, placed

    x, _ = placed(ctx, draw(ctx, (2, 4, 6), dtype, -2, 2), dtype, requires_grad=True)
    g, _ = placed(ctx, draw(ctx, (2, 4, 6), dtype, -1, 1), dtype)

    def backward():
        x.grad = None
        (F.group_norm(x, 2) * g).sum().backward()
        return x.grad

    grad = np.asarray(ctx.to_numpy(ctx.measure(backward)), dtype="float64").reshape(2, 2, -1)
    r = RTOL[dtype] * 20
    ctx.check_close(grad.sum(axis=2), np.zeros((2, 2)), rtol=r, atol=r)


@case("gradcheck-affine-sweep")
def group_norm_gradcheck(ctx):
    import torch
    import torch.nn.functional as F

    x = ctx.put(ctx.rng.standard_normal((2, 4, 3)), requires_grad=True)
    w = ctx.put(ctx.rng.uniform(0.5, 2, 4), requires_grad=True)
    b = ctx.put(ctx.rng.standard_normal(4), requires_grad=True)
    fn = lambda t, ww, bb: F.group_norm(t, 2, ww, bb)  # noqa: E731
    ctx.check(ctx.measure(torch.autograd.gradcheck, fn, (x, w, b), warm=False), "gradcheck")


@sweep(
    "{form}-sweep",
    form=[
        "3d-input",
        "5d-input",
        "channels-last",
        "non-contiguous",
        "eps",
        "module",
        "indivisible-refused",
    ],
)
def group_norm_forms(ctx, form):
    import torch
    import torch.nn.functional as F

    shape = {"3d-input": (3, 6, 7), "5d-input": (2, 6, 2, 3, 2)}.get(form, (2, 6, 4, 4))
    x_np = ctx.rng.standard_normal(shape) * 2 + 1
    x = ctx.put(x_np)
    eps = 1e-5
    if form == "indivisible-refused":

        def attempt():
            try:
                F.group_norm(x, 4)  # 6 channels do not split into 4 groups
            except (RuntimeError, ValueError):
                return True
            return False

        ctx.check(ctx.measure(attempt), "6 channels were split into 4 groups", "other")
        return
    if form == "channels-last":
        x = x.contiguous(memory_format=torch.channels_last)
    elif form == "non-contiguous":
        x, x_np = x.transpose(2, 3), x_np.transpose(0, 1, 3, 2)
        ctx.check(not x.is_contiguous(), "the input is a non-contiguous view", "other")
    if form == "eps":
        eps = 0.5
    if form == "module":
        layer = torch.nn.GroupNorm(3, 6).to(device=ctx.device, dtype=torch.float64)
        out = ctx.measure(layer, x)  # weight 1, bias 0 at initialisation
    else:
        out = ctx.measure(F.group_norm, x, 3, eps=eps)
    ctx.check_close(out, _reference(x_np, 3, eps=eps), dtype="float64", kind="reduction")


# The study's kinds of paths (issue #33): the refusals with class and message (groups that
# do not divide the channels, a weight of the wrong size, and the module's constructor),
# the full grid of groups x affine, vmap, second derivatives, and GroupNorm's parameters
# through a saved state dict.
@sweep("raises-{arg}", arg=["indivisible", "weight-size", "module-indivisible"])
def group_norm_refusals(ctx, arg):
    import torch
    import torch.nn.functional as F
    from _torchhelp import refusal

    x = ctx.put(np.zeros((2, 6, 4)))
    attempt, error, fragment = {
        "indivisible": (
            lambda: F.group_norm(x, 4),
            RuntimeError,
            "Expected number of channels in input to be divisible by num_groups",
        ),
        "weight-size": (
            lambda: F.group_norm(x, 3, weight=ctx.put(np.ones(4))),
            RuntimeError,
            "Expected weight to be a vector of size equal to the number of channels",
        ),
        "module-indivisible": (
            lambda: torch.nn.GroupNorm(4, 6),
            ValueError,
            "must be divisible by num_groups",
        ),
    }[arg]
    refusal(ctx, attempt, error, fragment)


@sweep("flags-groups{groups}-{affine}", groups=["1", "3", "6"], affine=["plain", "affine"])
def group_norm_grid(ctx, groups, affine):
    import torch.nn.functional as F

    g = int(groups)
    x_np = ctx.rng.standard_normal((3, 6, 5)) * 2 + 1
    w_np, b_np = ctx.rng.uniform(0.5, 2, 6), ctx.rng.standard_normal(6)
    if affine == "affine":
        out = ctx.measure(F.group_norm, ctx.put(x_np), g, ctx.put(w_np), ctx.put(b_np))
        expected = _reference(x_np, g, w_np, b_np)
    else:
        out, expected = ctx.measure(F.group_norm, ctx.put(x_np), g), _reference(x_np, g)
    ctx.check_close(out, expected, dtype="float64", kind="reduction")


@case("vmap-batch")
def group_norm_vmap(ctx):
    import torch.nn.functional as F
    from _torchhelp import vmap

    x_np = ctx.rng.standard_normal((4, 2, 6, 3))  # a vmapped batch of (2, 6, 3) inputs
    out = ctx.measure(vmap(ctx)(lambda t: F.group_norm(t, 2)), ctx.put(x_np))
    expected = np.stack([_reference(s, 2) for s in x_np])
    ctx.check_close(out, expected, dtype="float64", kind="reduction")


@case("grad2-gradgradcheck")
def group_norm_gradgrad(ctx):
    import torch.nn.functional as F
    from _torchhelp import gradgradcheck

    gradgradcheck(
        ctx,
        lambda t, w, b: F.group_norm(t, 2, w, b),
        ctx.rng.standard_normal((2, 4, 3)),
        ctx.rng.uniform(0.5, 2, 4),
        ctx.rng.standard_normal(4),
    )


@case("checkpoint-state-dict-saved")
def group_norm_restore(ctx):
    import torch
    from _torchhelp import saved

    source = torch.nn.GroupNorm(2, 4).to(device=ctx.device, dtype=torch.float64)
    w_np, b_np = ctx.rng.uniform(0.5, 2, 4), ctx.rng.standard_normal(4)
    with torch.no_grad():
        source.weight.copy_(ctx.put(w_np))
        source.bias.copy_(ctx.put(b_np))
    checkpoint = saved(source.state_dict())
    target = torch.nn.GroupNorm(2, 4).to(device=ctx.device, dtype=torch.float64)
    ctx.measure(target.load_state_dict, checkpoint, warm=False)
    x_np = ctx.rng.standard_normal((3, 4, 5))
    with torch.no_grad():
        out = target(ctx.put(x_np))
    ctx.check_close(out, _reference(x_np, 2, w_np, b_np), dtype="float64", kind="reduction")
