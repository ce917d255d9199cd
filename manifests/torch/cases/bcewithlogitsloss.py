"""torch.nn.BCEWithLogitsLoss: stable log-sigmoid loss; reductions, pos_weight, weight, grad."""

import numpy as np
from _torchhelp import EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


def _reference(x, y, pos_weight=1.0, weight=1.0):
    log_sig = -np.logaddexp(0, -x)
    log_one_minus = -np.logaddexp(0, x)
    return -weight * (pos_weight * y * log_sig + (1 - y) * log_one_minus)


@case("mean", reduction="mean")
@case("sum", reduction="sum")
@case("none", reduction="none")
@case("float64-mean", reduction="mean", dtype="float64")
@case("extreme-logits-stay-finite", reduction="none", scale=200.0)
def bce_values(ctx, reduction, dtype="float32", scale=3.0):
    import torch

    x = (ctx.rng.standard_normal((32, 8)) * scale).astype(dtype)
    y = (ctx.rng.random((32, 8)) > 0.5).astype(dtype)
    loss = torch.nn.BCEWithLogitsLoss(reduction=reduction)
    out = ctx.measure(loss, ctx.put(x), ctx.put(y))
    ref = _reference(x.astype("float64"), y.astype("float64"))
    expected = {"mean": ref.mean(), "sum": ref.sum(), "none": ref}[reduction]
    ctx.check_close(out, expected, rtol=1e-5, atol=1e-5)


@case("pos-weight-and-weight")
def bce_weights(ctx):
    import torch

    x = ctx.rng.standard_normal((16, 4))
    y = (ctx.rng.random((16, 4)) > 0.5).astype("float64")
    pos_weight, weight = np.array([1.0, 2.0, 3.0, 0.5]), np.array([0.5, 1.0, 1.0, 2.0])
    loss = torch.nn.BCEWithLogitsLoss(weight=ctx.put(weight), pos_weight=ctx.put(pos_weight))
    out = ctx.measure(loss, ctx.put(x), ctx.put(y))
    ctx.check_close(out, _reference(x, y, pos_weight, weight).mean(), dtype="float64")


@case("grad-is-sigmoid-minus-target")
def bce_grad(ctx):
    import torch

    x_np = ctx.rng.standard_normal(10).astype("float32")
    y_np = (ctx.rng.random(10) > 0.5).astype("float32")
    x, y = ctx.put(x_np, requires_grad=True), ctx.put(y_np)
    loss = torch.nn.BCEWithLogitsLoss(reduction="sum")

    def backward():
        x.grad = None
        loss(x, y).backward()
        return x.grad

    ctx.check_close(
        ctx.measure(backward), 1 / (1 + np.exp(-x_np.astype("float64"))) - y_np, dtype="float32"
    )


# Every float dtype the loss takes on the CPU, each reduction, in each mode.
@sweep(
    "{dtype}-{reduction}-{mode}-sweep",
    dtype=HALF_FLOATS + FULL_FLOATS,
    reduction=["mean", "sum", "none"],
    mode=EAGER_COMPILED,
)
def bce_dtypes(ctx, dtype, reduction, mode):
    import torch
    from _torchhelp import RTOL, draw, placed

    x, x_h = placed(ctx, draw(ctx, (8, 16), dtype, -6, 6), dtype)
    y, y_h = placed(ctx, (ctx.rng.random((8, 16)) > 0.5).astype("float32"), dtype)
    out = ctx.measure(ctx.in_mode(mode, torch.nn.BCEWithLogitsLoss(reduction=reduction)), x, y)
    ctx.check(out.dtype == x.dtype, f"dtype {out.dtype}, not {x.dtype}")
    ref = _reference(x_h, y_h)
    expected = {"mean": ref.mean(), "sum": ref.sum(), "none": ref}[reduction]
    r = RTOL[dtype] * (1 if reduction == "none" else 10)
    ctx.check_close(out, expected, rtol=r, atol=r)


# Soft targets in (0, 1) and weights broadcast over the batch, per dtype.
@sweep("soft-targets-weights-{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS)
def bce_soft_weighted(ctx, dtype):
    import torch
    from _torchhelp import RTOL, draw, placed

    x, x_h = placed(ctx, draw(ctx, (6, 5), dtype, -4, 4), dtype)
    y, y_h = placed(ctx, draw(ctx, (6, 5), dtype, 0, 1), dtype)
    pw, pw_h = placed(ctx, draw(ctx, (5,), dtype, 0.5, 3), dtype)
    w, w_h = placed(ctx, draw(ctx, (5,), dtype, 0.5, 2), dtype)
    loss = torch.nn.BCEWithLogitsLoss(weight=w, pos_weight=pw, reduction="none")
    out = ctx.measure(loss, x, y)
    r = RTOL[dtype] * 5
    ctx.check_close(out, _reference(x_h, y_h, pw_h, w_h), rtol=r, atol=r)


@sweep("grad-{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS)
def bce_grad_dtypes(ctx, dtype):
    import torch
    from _torchhelp import RTOL, draw, placed

    x, x_h = placed(ctx, draw(ctx, (40,), dtype, -5, 5), dtype, requires_grad=True)
    y, y_h = placed(ctx, draw(ctx, (40,), dtype, 0, 1), dtype)
    loss = torch.nn.BCEWithLogitsLoss(reduction="sum")

    def backward():
        x.grad = None
        loss(x, y).backward()
        return x.grad

    r = RTOL[dtype] * 5
    ctx.check_close(ctx.measure(backward), 1 / (1 + np.exp(-x_h)) - y_h, rtol=r, atol=r)


@case("gradcheck-float64-sweep")
def bce_gradcheck(ctx):
    import torch

    x = ctx.put(ctx.rng.standard_normal((3, 4)), requires_grad=True)
    y = ctx.put(ctx.rng.random((3, 4)), requires_grad=True)  # the target is differentiable too
    pw = ctx.put(np.array([1.0, 2.0, 0.5, 3.0]))
    loss = torch.nn.BCEWithLogitsLoss(pos_weight=pw)
    ctx.check(ctx.measure(torch.autograd.gradcheck, loss, (x, y), warm=False), "gradcheck")


@sweep(
    "{form}-sweep",
    form=["scalar", "empty-mean-is-nan", "non-contiguous", "functional", "shape-mismatch-refused"],
)
def bce_forms(ctx, form):
    import torch.nn.functional as F

    x_np = ctx.rng.standard_normal((5, 7)) * 3
    y_np = (ctx.rng.random((5, 7)) > 0.5).astype("float64")
    x, y = ctx.put(x_np), ctx.put(y_np)
    if form == "shape-mismatch-refused":

        def attempt():
            try:
                F.binary_cross_entropy_with_logits(x, y[:, :3])
            except (ValueError, RuntimeError):
                return True
            return False

        ctx.check(ctx.measure(attempt), "a (5, 3) target was taken for a (5, 7) input", "other")
        return
    if form == "scalar":
        out = ctx.measure(F.binary_cross_entropy_with_logits, x[0, 0], y[0, 0])
        expected = _reference(x_np[0, 0], y_np[0, 0])
    elif form == "empty-mean-is-nan":
        e = ctx.put(np.zeros((0, 3)))
        out = ctx.measure(F.binary_cross_entropy_with_logits, e, e)  # a mean over nothing
        ctx.check(bool(np.isnan(ctx.to_numpy(out))), f"mean over nothing gave {out}")
        return
    elif form == "non-contiguous":
        xt = ctx.put(np.ascontiguousarray(x_np.T)).t()
        ctx.check(not xt.is_contiguous(), "the input is a non-contiguous view", "other")
        out, expected = (
            ctx.measure(F.binary_cross_entropy_with_logits, xt, y),
            _reference(x_np, y_np).mean(),
        )
    else:
        out = ctx.measure(F.binary_cross_entropy_with_logits, x, y, reduction="sum")
        expected = _reference(x_np, y_np).sum()
    ctx.check_close(out, expected, dtype="float64", kind="reduction")


# The study's kinds of paths (issue #33): the refusals (a target of another size, an
# unknown reduction, a pos_weight that does not broadcast), the full grid of reduction x
# weight x pos_weight, vmap of per-sample losses, second derivatives, and the loss's
# weight buffers through a saved state dict.
@sweep("raises-{arg}", arg=["target-size", "reduction", "pos-weight-shape"])
def bce_refusals(ctx, arg):
    import torch.nn.functional as F
    from _torchhelp import refusal

    x, y = ctx.put(np.zeros((5, 7))), ctx.put(np.ones((5, 7)))
    attempt, error, fragment = {
        "target-size": (
            lambda: F.binary_cross_entropy_with_logits(x, y[:, :3]),
            ValueError,
            "Target size",
        ),
        "reduction": (
            lambda: F.binary_cross_entropy_with_logits(x, y, reduction="average"),
            ValueError,
            "is not a valid value for reduction",
        ),
        "pos-weight-shape": (
            lambda: F.binary_cross_entropy_with_logits(x, y, pos_weight=ctx.put(np.ones(3))),
            RuntimeError,
            "must match",
        ),
    }[arg]
    refusal(ctx, attempt, error, fragment)


@sweep(
    "flags-{reduction}-{weight}-{pos}",
    reduction=["mean", "sum", "none"],
    weight=["no-weight", "weight"],
    pos=["no-pos-weight", "pos-weight"],
)
def bce_grid(ctx, reduction, weight, pos):
    import torch

    x_np = ctx.rng.standard_normal((6, 4)) * 3
    y_np = ctx.rng.random((6, 4))
    w_np, pw_np = ctx.rng.uniform(0.5, 2, 4), ctx.rng.uniform(0.5, 3, 4)
    kwargs = {"reduction": reduction}
    if weight == "weight":
        kwargs["weight"] = ctx.put(w_np)
    if pos == "pos-weight":
        kwargs["pos_weight"] = ctx.put(pw_np)
    out = ctx.measure(torch.nn.BCEWithLogitsLoss(**kwargs), ctx.put(x_np), ctx.put(y_np))
    ref = _reference(
        x_np, y_np, pw_np if pos == "pos-weight" else 1.0, w_np if weight == "weight" else 1.0
    )
    expected = {"mean": ref.mean(), "sum": ref.sum(), "none": ref}[reduction]
    ctx.check_close(out, expected, dtype="float64", kind="reduction")


@case("vmap-per-sample-losses")
def bce_vmap(ctx):
    import torch.nn.functional as F
    from _torchhelp import vmap

    x_np, y_np = ctx.rng.standard_normal((5, 8)) * 2, ctx.rng.random((5, 8))
    fn = vmap(ctx)(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction="sum"))
    out = ctx.measure(fn, ctx.put(x_np), ctx.put(y_np))
    ctx.check_close(out, _reference(x_np, y_np).sum(axis=1), dtype="float64", kind="reduction")


@case("grad2-gradgradcheck")
def bce_gradgrad(ctx):
    import torch.nn.functional as F
    from _torchhelp import gradgradcheck

    pw = ctx.put(np.array([1.0, 2.0, 0.5]))
    gradgradcheck(
        ctx,
        lambda a, b: F.binary_cross_entropy_with_logits(a, b, pos_weight=pw),
        ctx.rng.standard_normal((4, 3)),
        ctx.rng.random((4, 3)),
    )


@case("checkpoint-weight-buffers")
def bce_restore(ctx):
    import torch
    from _torchhelp import saved

    w_np, pw_np = ctx.rng.uniform(0.5, 2, 4), ctx.rng.uniform(0.5, 3, 4)
    source = torch.nn.BCEWithLogitsLoss(weight=ctx.put(w_np), pos_weight=ctx.put(pw_np))
    checkpoint = saved(source.state_dict())
    # A fresh loss with placeholders of the same shape takes the saved buffers.
    target = torch.nn.BCEWithLogitsLoss(weight=ctx.put(np.ones(4)), pos_weight=ctx.put(np.ones(4)))
    ctx.measure(target.load_state_dict, checkpoint, warm=False)
    x_np, y_np = ctx.rng.standard_normal((3, 4)), ctx.rng.random((3, 4))
    out = target(ctx.put(x_np), ctx.put(y_np))
    ctx.check_close(out, _reference(x_np, y_np, pw_np, w_np).mean(), dtype="float64")
