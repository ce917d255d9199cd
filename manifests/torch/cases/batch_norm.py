"""torch.nn.functional.batch_norm: training (batch statistics, running stats updated with
momentum) and inference (running stats), affine, autograd."""

import numpy as np
from _torchhelp import EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


@case("training-2d", shape=(16, 6))
@case("training-4d", shape=(8, 3, 5, 5))
@case("training-float64", shape=(10, 4), dtype="float64")
@case("large", shape=(64, 64, 32, 32))
def batch_norm_training(ctx, shape, dtype="float32"):
    import torch.nn.functional as F

    x = (ctx.rng.standard_normal(shape) * 2 + 3).astype(dtype)
    c = shape[1]
    mean, var = ctx.put(np.zeros(c, dtype=dtype)), ctx.put(np.ones(c, dtype=dtype))
    out = ctx.measure(F.batch_norm, ctx.put(x), mean, var, training=True, momentum=0.1, warm=False)
    axes = (0, *tuple(range(2, len(shape))))
    x64 = x.astype("float64")
    shape_c = (1, c) + (1,) * (len(shape) - 2)
    expected = (x64 - x64.mean(axis=axes).reshape(shape_c)) / np.sqrt(
        x64.var(axis=axes).reshape(shape_c) + 1e-5
    )
    ctx.check_close(out, expected, rtol=1e-4, atol=1e-4)
    n = x.size // c
    ctx.check_close(mean, 0.1 * x64.mean(axis=axes), rtol=1e-4, atol=1e-5, what="running mean")
    ctx.check_close(
        var, 0.9 + 0.1 * x64.var(axis=axes) * n / (n - 1), rtol=1e-4, atol=1e-5, what="running var"
    )


@case("inference-uses-running-stats")
def batch_norm_eval(ctx):
    import torch.nn.functional as F

    x = ctx.rng.standard_normal((5, 3))
    mean, var = np.array([1.0, -1.0, 0.5]), np.array([4.0, 1.0, 0.25])
    w, b = np.array([2.0, 1.0, 0.5]), np.array([0.0, 1.0, -1.0])
    out = ctx.measure(
        F.batch_norm,
        ctx.put(x),
        ctx.put(mean),
        ctx.put(var),
        ctx.put(w),
        ctx.put(b),
        training=False,
    )
    ctx.check_close(out, (x - mean) / np.sqrt(var + 1e-5) * w + b, dtype="float64")


@case("grad-mean-zero")
def batch_norm_grad(ctx):
    import torch.nn.functional as F

    x = ctx.put(ctx.rng.standard_normal((8, 2)), requires_grad=True)
    target = ctx.put(ctx.rng.standard_normal((8, 2)))

    def backward():
        x.grad = None
        (F.batch_norm(x, None, None, training=True) * target).sum().backward()
        return x.grad

    ctx.check_close(
        ctx.to_numpy(ctx.measure(backward)).sum(axis=0), np.zeros(2), dtype="float64", atol=1e-9
    )


def _bn_ref(x, mean, var, w, b, eps=1e-5):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * w.reshape(
        shape
    ) + b.reshape(shape)


# Every float dtype batch_norm takes on the CPU, training (batch statistics; running stats
# updated with momentum) and inference (running stats), affine, in each mode.
@sweep(
    "{dtype}-{phase}-{mode}-sweep",
    dtype=HALF_FLOATS + FULL_FLOATS,
    phase=["training", "inference"],
    mode=EAGER_COMPILED,
)
def batch_norm_dtypes(ctx, dtype, phase, mode):
    import torch.nn.functional as F
    from _torchhelp import RTOL, draw, placed

    x, x_h = placed(ctx, draw(ctx, (6, 4, 3, 3), dtype, -2, 4), dtype)
    mean, mean_h = placed(ctx, draw(ctx, (4,), dtype, -1, 1), dtype)
    var, var_h = placed(ctx, draw(ctx, (4,), dtype, 0.5, 2), dtype)
    w, w_h = placed(ctx, draw(ctx, (4,), dtype, 0.5, 2), dtype)
    b, b_h = placed(ctx, draw(ctx, (4,), dtype, -1, 1), dtype)
    training = phase == "training"

    def run(t, m, v, weight, bias):
        return F.batch_norm(t, m, v, weight, bias, training=training, momentum=0.1)

    out = ctx.measure(ctx.in_mode(mode, run), x, mean, var, w, b, warm=not training)
    ctx.check(out.dtype == x.dtype, f"dtype {out.dtype}, not {x.dtype}")
    r = RTOL[dtype] * 10  # statistics are reductions over 54 elements
    if training:
        axes = (0, 2, 3)
        bm, bv = x_h.mean(axis=axes), x_h.var(axis=axes)
        ctx.check_close(out, _bn_ref(x_h, bm, bv, w_h, b_h), rtol=r, atol=r)
        n = x_h.size // 4
        ctx.check_close(mean, 0.9 * mean_h + 0.1 * bm, rtol=r, atol=r, what="running mean")
        ctx.check_close(
            var, 0.9 * var_h + 0.1 * bv * n / (n - 1), rtol=r, atol=r, what="running var"
        )
    else:
        ctx.check_close(out, _bn_ref(x_h, mean_h, var_h, w_h, b_h), rtol=r, atol=r)


@sweep("gradcheck-{phase}-sweep", phase=["training", "inference"])
def batch_norm_gradcheck(ctx, phase):
    import torch
    import torch.nn.functional as F

    # float64 gradcheck of input, weight and bias (statistics are buffers, not inputs).
    x = ctx.put(ctx.rng.standard_normal((4, 3, 2)), requires_grad=True)
    w = ctx.put(ctx.rng.uniform(0.5, 2, 3), requires_grad=True)
    b = ctx.put(ctx.rng.standard_normal(3), requires_grad=True)
    mean, var = ctx.put(np.zeros(3)), ctx.put(np.ones(3))
    training = phase == "training"

    def fn(t, weight, bias):
        return F.batch_norm(t, mean.clone(), var.clone(), weight, bias, training=training)

    ctx.check(ctx.measure(torch.autograd.gradcheck, fn, (x, w, b), warm=False), "gradcheck")


@sweep("grad-{dtype}-sweep", dtype=["float16", "bfloat16", "float32"])
def batch_norm_grad_dtypes(ctx, dtype):
    import torch.nn.functional as F
    from _torchhelp import RTOL, draw, placed

    # The input gradient of training-mode batch norm sums to zero over each channel.
    x, _ = placed(ctx, draw(ctx, (8, 3, 4), dtype, -2, 2), dtype, requires_grad=True)
    g, _ = placed(ctx, draw(ctx, (8, 3, 4), dtype, -1, 1), dtype)

    def backward():
        x.grad = None
        (F.batch_norm(x, None, None, training=True) * g).sum().backward()
        return x.grad

    grad = np.asarray(ctx.to_numpy(ctx.measure(backward)), dtype="float64")
    r = RTOL[dtype] * 20
    ctx.check_close(grad.sum(axis=(0, 2)), np.zeros(3), rtol=r, atol=r)


@sweep(
    "{form}-sweep",
    form=[
        "no-running-stats",
        "2d-input",
        "5d-input",
        "channels-last",
        "non-contiguous",
        "one-value-per-channel-refused",
    ],
)
def batch_norm_forms(ctx, form):
    import torch
    import torch.nn.functional as F

    shape = {"2d-input": (7, 4), "5d-input": (3, 4, 2, 3, 2)}.get(form, (3, 4, 5, 5))
    x_np = ctx.rng.standard_normal(shape) * 2 + 1
    x = ctx.put(x_np)
    if form == "one-value-per-channel-refused":
        # Training needs more than one value per channel to estimate a variance.
        one = ctx.put(np.ones((1, 4)))

        def attempt():
            try:
                F.batch_norm(one, None, None, training=True)
            except ValueError:
                return True
            return False

        ctx.check(ctx.measure(attempt), "one value per channel was normalised", "other")
        return
    if form == "channels-last":
        x = x.contiguous(memory_format=torch.channels_last)
    elif form == "non-contiguous":
        x = x.transpose(2, 3)
        x_np = x_np.transpose(0, 1, 3, 2)
        ctx.check(not x.is_contiguous(), "the input is a non-contiguous view", "other")
    out = ctx.measure(F.batch_norm, x, None, None, training=True)
    axes = (0, *range(2, x_np.ndim))
    keep = np.expand_dims
    mean = (
        keep(x_np.mean(axis=axes), axis=tuple(range(1, x_np.ndim - 1)))
        if x_np.ndim > 2
        else (x_np.mean(axis=0))
    )
    var = (
        keep(x_np.var(axis=axes), axis=tuple(range(1, x_np.ndim - 1)))
        if x_np.ndim > 2
        else (x_np.var(axis=0))
    )
    ctx.check_close(out, (x_np - mean) / np.sqrt(var + 1e-5), dtype="float64", kind="reduction")


# The study's kinds of paths (issue #33): the refusals (statistics or weight of the wrong
# size, inference without running statistics), the full grid of phase x affine x running
# statistics, vmap in inference, second derivatives, and running statistics restored from
# a checkpoint continuing as if never interrupted.
@sweep("raises-{arg}", arg=["running-mean-size", "weight-size"])
def batch_norm_refusals(ctx, arg):
    import torch.nn.functional as F
    from _torchhelp import refusal

    x = ctx.put(ctx.rng.standard_normal((5, 4)))
    mean, var = ctx.put(np.zeros(4)), ctx.put(np.ones(4))
    if arg == "running-mean-size":
        attempt = lambda: F.batch_norm(x, mean[:3], var[:3])  # noqa: E731
        fragment = "running_mean should contain 4 elements not 3"
    else:
        attempt = lambda: F.batch_norm(x, mean, var, weight=ctx.put(np.ones(3)))  # noqa: E731
        fragment = "weight should contain 4 elements not 3"
    refusal(ctx, attempt, RuntimeError, fragment)


@sweep(
    "flags-{phase}-{affine}-{stats}",
    phase=["training", "inference"],
    affine=["affine", "plain"],
    stats=["tracked", "untracked"],
)
def batch_norm_grid(ctx, phase, affine, stats):
    import torch.nn.functional as F
    from _torchhelp import refusal

    x_np = ctx.rng.standard_normal((6, 3, 4)) * 2 + 1
    m_np, v_np = ctx.rng.uniform(-1, 1, 3), ctx.rng.uniform(0.5, 2, 3)
    w_np, b_np = ctx.rng.uniform(0.5, 2, 3), ctx.rng.uniform(-1, 1, 3)
    x = ctx.put(x_np)
    mean, var = (ctx.put(m_np), ctx.put(v_np)) if stats == "tracked" else (None, None)
    w, b = (ctx.put(w_np), ctx.put(b_np)) if affine == "affine" else (None, None)
    training = phase == "training"
    if not training and stats == "untracked":
        # Documented: inference normalizes by the running statistics, so they must exist.
        refusal(
            ctx,
            lambda: F.batch_norm(x, None, None, w, b, training=False),
            RuntimeError,
            "running_mean must be defined in evaluation mode",
        )
        return
    out = ctx.measure(F.batch_norm, x, mean, var, w, b, training=training, warm=not training)
    one = np.ones(3)
    w_ref, b_ref = (w_np, b_np) if affine == "affine" else (one, 0 * one)
    if training:
        bm, bv = x_np.mean(axis=(0, 2)), x_np.var(axis=(0, 2))
        ctx.check_close(out, _bn_ref(x_np, bm, bv, w_ref, b_ref), dtype="float64", kind="reduction")
        if stats == "tracked":
            n = x_np.size // 3
            ctx.check_close(mean, 0.9 * m_np + 0.1 * bm, dtype="float64", what="running mean")
            ctx.check_close(var, 0.9 * v_np + 0.1 * bv * n / (n - 1), dtype="float64", what="var")
    else:
        ctx.check_close(out, _bn_ref(x_np, m_np, v_np, w_ref, b_ref), dtype="float64")


@case("vmap-inference")
def batch_norm_vmap(ctx):
    import torch.nn.functional as F
    from _torchhelp import vmap

    x_np = ctx.rng.standard_normal((4, 5, 3))  # a vmapped batch of (5, 3) inputs
    m_np, v_np = ctx.rng.uniform(-1, 1, 3), ctx.rng.uniform(0.5, 2, 3)
    mean, var = ctx.put(m_np), ctx.put(v_np)
    fn = vmap(ctx)(lambda t: F.batch_norm(t, mean, var, training=False))
    out = ctx.measure(fn, ctx.put(x_np))
    ctx.check_close(out, (x_np - m_np) / np.sqrt(v_np + 1e-5), dtype="float64")


@sweep("grad2-{phase}", phase=["training", "inference"])
def batch_norm_gradgrad(ctx, phase):
    import torch.nn.functional as F
    from _torchhelp import gradgradcheck

    training = phase == "training"
    mean, var = ctx.put(np.zeros(3)), ctx.put(np.ones(3))

    def fn(t, w, b):
        return F.batch_norm(t, mean.clone(), var.clone(), w, b, training=training) ** 2

    gradgradcheck(
        ctx,
        fn,
        ctx.rng.standard_normal((4, 3, 2)),
        ctx.rng.uniform(0.5, 2, 3),
        ctx.rng.standard_normal(3),
    )


@case("checkpoint-running-stats")
def batch_norm_restore(ctx):
    import torch.nn.functional as F
    from _torchhelp import saved

    batches = [ctx.rng.standard_normal((8, 3)) * 2 + i for i in range(4)]
    mean, var = ctx.put(np.zeros(3)), ctx.put(np.ones(3))
    for x in batches[:2]:
        F.batch_norm(ctx.put(x), mean, var, training=True, momentum=0.2)
    state = saved({"mean": mean, "var": var})
    mean2, var2 = state["mean"].clone(), state["var"].clone()

    def resume():
        for x in batches[2:]:
            F.batch_norm(ctx.put(x), mean2, var2, training=True, momentum=0.2)
        return mean2, var2

    got_mean, got_var = ctx.measure(resume, warm=False)
    want_mean, want_var = np.zeros(3), np.ones(3)
    for x in batches:
        want_mean = 0.8 * want_mean + 0.2 * x.mean(axis=0)
        want_var = 0.8 * want_var + 0.2 * x.var(axis=0, ddof=1)
    ctx.check_close(got_mean, want_mean, dtype="float64", kind="reduction", what="running mean")
    ctx.check_close(got_var, want_var, dtype="float64", kind="reduction", what="running var")
