"""torch.nn.KLDivLoss: KL(target || input) with log-probability inputs; reductions,
log_target, zero targets, autograd."""

import numpy as np
from _torchhelp import EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


def _log_softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


@case("batchmean", reduction="batchmean")
@case("sum", reduction="sum")
@case("none", reduction="none")
@case("float64-mean", reduction="mean", dtype="float64")
def kl_values(ctx, reduction, dtype="float32"):
    import torch

    logp = _log_softmax(ctx.rng.standard_normal((16, 10))).astype(dtype)
    q = np.exp(_log_softmax(ctx.rng.standard_normal((16, 10)))).astype(dtype)
    out = ctx.measure(torch.nn.KLDivLoss(reduction=reduction), ctx.put(logp), ctx.put(q))
    pointwise = q.astype("float64") * (np.log(q.astype("float64")) - logp.astype("float64"))
    expected = {
        "batchmean": pointwise.sum() / 16,
        "sum": pointwise.sum(),
        "none": pointwise,
        "mean": pointwise.mean(),
    }[reduction]
    ctx.check_close(out, expected, rtol=1e-5, atol=1e-6)


@case("log-target")
def kl_log_target(ctx):
    import torch

    logp = _log_softmax(ctx.rng.standard_normal((4, 5)))
    logq = _log_softmax(ctx.rng.standard_normal((4, 5)))
    out = ctx.measure(
        torch.nn.KLDivLoss(reduction="sum", log_target=True), ctx.put(logp), ctx.put(logq)
    )
    ctx.check_close(out, (np.exp(logq) * (logq - logp)).sum(), dtype="float64")


@case("zero-target-contributes-zero")
def kl_zero_target(ctx):
    import torch

    logp = ctx.put(np.log(np.array([[0.5, 0.5]])))
    out = ctx.measure(torch.nn.KLDivLoss(reduction="sum"), logp, ctx.put(np.array([[1.0, 0.0]])))
    ctx.check_close(out, np.log(2.0), dtype="float64")


def _kl_ref(logp, target, log_target):
    q = np.exp(target) if log_target else target
    logq = target if log_target else np.log(np.where(q > 0, q, 1))
    return np.where(q > 0, q * (logq - logp), 0.0)


# Every float dtype the loss takes on the CPU, target as probabilities or log-probabilities,
# in each mode (batchmean, the reduction the docs recommend).
@sweep(
    "{dtype}-{target}-{mode}-sweep",
    dtype=HALF_FLOATS + FULL_FLOATS,
    target=["prob", "log"],
    mode=EAGER_COMPILED,
)
def kl_dtypes(ctx, dtype, target, mode):
    import torch
    from _torchhelp import RTOL, placed

    logp, logp_h = placed(
        ctx, _log_softmax(ctx.rng.standard_normal((8, 12))).astype("float32"), dtype
    )
    lq = _log_softmax(ctx.rng.standard_normal((8, 12)))
    tgt, tgt_h = placed(ctx, (lq if target == "log" else np.exp(lq)).astype("float32"), dtype)
    loss = torch.nn.KLDivLoss(reduction="batchmean", log_target=target == "log")
    out = ctx.measure(ctx.in_mode(mode, loss), logp, tgt)
    ctx.check(out.dtype == logp.dtype, f"dtype {out.dtype}, not {logp.dtype}")
    r = RTOL[dtype] * 10
    ctx.check_close(out, _kl_ref(logp_h, tgt_h, target == "log").sum() / 8, rtol=r, atol=r)


@sweep("grad-{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS)
def kl_grad_dtypes(ctx, dtype):
    import torch
    from _torchhelp import RTOL, placed

    # d/d logp of sum(q * (log q - logp)) is -q.
    logp, _ = placed(
        ctx,
        _log_softmax(ctx.rng.standard_normal((4, 9))).astype("float32"),
        dtype,
        requires_grad=True,
    )
    q, q_h = placed(
        ctx, np.exp(_log_softmax(ctx.rng.standard_normal((4, 9)))).astype("float32"), dtype
    )
    loss = torch.nn.KLDivLoss(reduction="sum")

    def backward():
        logp.grad = None
        loss(logp, q).backward()
        return logp.grad

    ctx.check_close(ctx.measure(backward), -q_h, rtol=RTOL[dtype], atol=RTOL[dtype])


@sweep("gradcheck-{target}-sweep", target=["prob", "log"])
def kl_gradcheck(ctx, target):
    import torch

    logp = ctx.put(_log_softmax(ctx.rng.standard_normal((3, 4))), requires_grad=True)
    lq = _log_softmax(ctx.rng.standard_normal((3, 4)))
    tgt = ctx.put(lq if target == "log" else np.exp(lq), requires_grad=True)
    loss = torch.nn.KLDivLoss(reduction="batchmean", log_target=target == "log")
    ctx.check(ctx.measure(torch.autograd.gradcheck, loss, (logp, tgt), warm=False), "gradcheck")


@sweep("{form}-sweep", form=["broadcast-target", "non-contiguous", "3d-batchmean", "functional"])
def kl_forms(ctx, form):
    import torch
    import torch.nn.functional as F

    logp_np = _log_softmax(ctx.rng.standard_normal((6, 5)))
    q_np = np.exp(_log_softmax(ctx.rng.standard_normal((6, 5))))
    logp, q = ctx.put(logp_np), ctx.put(q_np)
    loss = torch.nn.KLDivLoss(reduction="sum")
    if form == "broadcast-target":
        out = ctx.measure(loss, logp, q[:1])  # one distribution for every row
        expected = _kl_ref(logp_np, np.broadcast_to(q_np[:1], (6, 5)), False).sum()
    elif form == "non-contiguous":
        lt = ctx.put(np.ascontiguousarray(logp_np.T)).t()
        ctx.check(not lt.is_contiguous(), "the input is a non-contiguous view", "other")
        out, expected = ctx.measure(loss, lt, q), _kl_ref(logp_np, q_np, False).sum()
    elif form == "3d-batchmean":
        # batchmean divides by the first dimension only, whatever the rank.
        l3, q3 = logp_np.reshape(2, 3, 5), q_np.reshape(2, 3, 5)
        out = ctx.measure(torch.nn.KLDivLoss(reduction="batchmean"), ctx.put(l3), ctx.put(q3))
        expected = _kl_ref(l3, q3, False).sum() / 2
    else:
        out = ctx.measure(F.kl_div, logp, q, reduction="none")
        expected = _kl_ref(logp_np, q_np, False)
    ctx.check_close(out, expected, dtype="float64", kind="reduction")


# The study's kinds of paths (issue #33): the refusals (an unknown reduction; shapes that do
# not broadcast), the full grid of reduction x log_target, vmap of per-sample losses, and
# second derivatives in both the input and the target.
@sweep("raises-{arg}", arg=["reduction", "shape"])
def kl_refusals(ctx, arg):
    import torch.nn.functional as F
    from _torchhelp import refusal

    a = ctx.put(np.zeros((3, 4)))
    if arg == "reduction":
        refusal(
            ctx,
            lambda: F.kl_div(a, a, reduction="average"),
            ValueError,
            "is not a valid value for reduction",
        )
    else:
        refusal(ctx, lambda: F.kl_div(a, ctx.put(np.zeros((3, 5)))), RuntimeError, "must match")


@sweep(
    "flags-{reduction}-{target}",
    reduction=["none", "sum", "mean", "batchmean"],
    target=["prob", "log"],
)
def kl_grid(ctx, reduction, target):
    import torch

    logp = _log_softmax(ctx.rng.standard_normal((5, 6)))
    lq = _log_softmax(ctx.rng.standard_normal((5, 6)))
    tgt = lq if target == "log" else np.exp(lq)
    loss = torch.nn.KLDivLoss(reduction=reduction, log_target=target == "log")
    out = ctx.measure(loss, ctx.put(logp), ctx.put(tgt))
    pointwise = _kl_ref(logp, tgt, target == "log")
    expected = {
        "none": pointwise,
        "sum": pointwise.sum(),
        "mean": pointwise.mean(),
        "batchmean": pointwise.sum() / 5,
    }[reduction]
    ctx.check_close(out, expected, dtype="float64", kind="reduction")


@case("vmap-per-sample-losses")
def kl_vmap(ctx):
    import torch.nn.functional as F
    from _torchhelp import vmap

    logp = _log_softmax(ctx.rng.standard_normal((4, 7)))
    q = np.exp(_log_softmax(ctx.rng.standard_normal((4, 7))))
    fn = vmap(ctx)(lambda a, b: F.kl_div(a, b, reduction="sum"))
    out = ctx.measure(fn, ctx.put(logp), ctx.put(q))
    ctx.check_close(out, _kl_ref(logp, q, False).sum(axis=1), dtype="float64", kind="reduction")


@sweep("grad2-{target}", target=["prob", "log"])
def kl_gradgrad(ctx, target):
    import torch.nn.functional as F
    from _torchhelp import gradgradcheck

    lq = _log_softmax(ctx.rng.standard_normal((3, 4)))
    gradgradcheck(
        ctx,
        lambda a, b: F.kl_div(a, b, reduction="batchmean", log_target=target == "log"),
        _log_softmax(ctx.rng.standard_normal((3, 4))),
        lq if target == "log" else np.exp(lq),
    )
