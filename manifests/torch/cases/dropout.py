"""torch.nn.functional.dropout: zeroes elements with probability p and scales survivors,
identity when not training, p=0 and p=1 edges, autograd mask."""

import numpy as np
from _torchhelp import EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


@case("p-half", p=0.5)
@case("p-point-1", p=0.1)
@case("float64", p=0.3, dtype="float64")
@case("large", p=0.5, n=1_000_000)
def dropout_train(ctx, p, dtype="float32", n=100_000):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    import torch.nn.functional as F

    torch.manual_seed(ctx.seed)
    out = ctx.to_numpy(ctx.measure(F.dropout, ctx.put(np.ones(n, dtype=dtype)), p, True))
    kept = out != 0
    ctx.check_close(out[kept], np.full(kept.sum(), 1 / (1 - p)), dtype=dtype)
    ctx.check(abs(1 - kept.mean() - p) < 0.02, f"dropped share {1 - kept.mean():.3f}, expected {p}")


@case("not-training-is-identity")
def dropout_eval(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch.nn.functional as F

    x = ctx.rng.standard_normal(100).astype("float32")
    ctx.check_equal(ctx.measure(F.dropout, ctx.put(x), 0.5, False), x)


@case("edges-p0-p1")
def dropout_edges(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch.nn.functional as F

    x = ctx.put(np.ones(10, dtype="float32"))
    out = ctx.measure(lambda: (F.dropout(x, 0.0, True), F.dropout(x, 1.0, True)))
    ctx.check_equal(out[0], np.ones(10))
    ctx.check_equal(out[1], np.zeros(10))


@case("grad-follows-mask")
def dropout_grad(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    import torch.nn.functional as F

    torch.manual_seed(ctx.seed)
    x = ctx.put(np.ones(1000, dtype="float32"), requires_grad=True)

    def backward():
        x.grad = None
        y = F.dropout(x, 0.5, True)
        y.sum().backward()
        return y, x.grad

    y, grad = ctx.measure(backward, warm=False)
    ctx.check_close(grad, ctx.to_numpy(y.detach()), dtype="float32")


# Every float dtype dropout takes on the CPU (complex is refused there: "bernoulli_scalar_cpu_"
# is not implemented for complex), in each mode (torch.compile draws its own random numbers:
# the properties hold, the values differ). Survivors are 1/(1-p) exactly in every float width
# for p = 0.5 and 0.75.
@sweep(
    "{dtype}-p{p}-{mode}-sweep",
    dtype=HALF_FLOATS + FULL_FLOATS,
    p=["0.5", "0.75"],
    mode=EAGER_COMPILED,
)
def dropout_dtypes(ctx, dtype, p, mode):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    import torch.nn.functional as F

    prob = float(p)
    torch.manual_seed(ctx.seed)
    x_np = ctx.rng.integers(1, 9, size=4096).astype("float32")  # exact in every float width
    x = ctx.put(x_np, dtype=dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda t: F.dropout(t, prob, True)), x)
    ctx.check(out.dtype == x.dtype, f"dtype {out.dtype}, not {x.dtype}")
    got = np.asarray(ctx.to_numpy(out), dtype="float64")
    kept = got != 0
    ctx.check_equal(got[kept], x_np[kept] / (1 - prob))
    share = 1 - kept.mean()
    ctx.check(abs(share - prob) < 0.05, f"dropped share {share:.3f}, expected {prob}")


@sweep("{form}-sweep", form=["in-place", "module-train", "module-eval", "empty", "bad-p-refused"])
def dropout_forms(ctx, form):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    import torch.nn.functional as F

    torch.manual_seed(ctx.seed)
    x_np = np.full((32, 32), 3.0, dtype="float32")
    x = ctx.put(x_np)
    if form == "in-place":
        out = ctx.measure(F.dropout, x, 0.5, True, True, warm=False)
        ctx.check(out.data_ptr() == x.data_ptr(), "inplace=True made a new tensor", "other")
        vals = np.unique(ctx.to_numpy(x))
        ctx.check(set(vals.tolist()) <= {0.0, 6.0}, f"values {vals}")
    elif form in ("module-train", "module-eval"):
        layer = torch.nn.Dropout(0.5).train(form == "module-train")
        vals = np.unique(ctx.to_numpy(ctx.measure(layer, x)))
        want = {0.0, 6.0} if form == "module-train" else {3.0}
        ctx.check(set(vals.tolist()) <= want and len(vals) == len(want), f"values {vals}")
    elif form == "empty":
        out = ctx.measure(F.dropout, ctx.put(np.zeros((0, 4), dtype="float32")), 0.5, True)
        ctx.check(tuple(out.shape) == (0, 4), f"shape {out.shape}")
    else:

        def attempt():
            try:
                F.dropout(x, 1.5, True)
            except ValueError:
                return True
            return False

        ctx.check(ctx.measure(attempt), "p=1.5 was accepted", "other")


@sweep("grad-{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS)
def dropout_grad_dtypes(ctx, dtype):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    import torch.nn.functional as F

    torch.manual_seed(ctx.seed)
    x = ctx.put(np.ones(512, dtype="float32"), dtype=dtype, requires_grad=True)

    def backward():
        x.grad = None
        y = F.dropout(x, 0.5, True)
        y.sum().backward()
        return y, x.grad

    y, grad = ctx.measure(backward, warm=False)
    ctx.check_equal(grad, ctx.to_numpy(y.detach()))  # the gradient is the mask times 2


# The study's kinds of paths (issue #33): the refusal of random work under vmap's default
# randomness='error' (class and message); vmap with 'different' (a mask per sample) and
# 'same' (one mask for all); second derivatives (the draw reseeded inside, so finite
# differences see one mask); the global generator's state saved and restored draws the
# same mask; and the full grid of p x training x inplace.
@case("raises-vmap-randomness-error")
def dropout_vmap_refusal(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch.nn.functional as F
    from _torchhelp import refusal, vmap

    batched = vmap(ctx)(lambda r: F.dropout(r, 0.5, True))
    x = ctx.put(np.ones((3, 8), dtype="float32"))
    refusal(ctx, lambda: batched(x), RuntimeError, "randomness")


@sweep("vmap-randomness-{mode}", mode=["different", "same"])
def dropout_vmap(ctx, mode):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    import torch.nn.functional as F
    from _torchhelp import vmap

    torch.manual_seed(ctx.seed)
    fn = vmap(ctx)(lambda r: F.dropout(r, 0.5, True), randomness=mode)
    out = ctx.to_numpy(ctx.measure(fn, ctx.put(np.full((6, 64), 3.0, dtype="float32"))))
    ctx.check(set(np.unique(out).tolist()) <= {0.0, 6.0}, f"values {np.unique(out)}")
    masks = out != 0
    same = all(np.array_equal(masks[0], m) for m in masks[1:])
    # Six masks of 64 draws each: two 'different' masks agree with probability 2^-64.
    ctx.check(same == (mode == "same"), f"randomness={mode!r}: masks identical is {same}")


@case("grad2-gradgradcheck")
def dropout_gradgrad(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    import torch.nn.functional as F
    from _torchhelp import gradgradcheck

    def fn(t):
        torch.manual_seed(ctx.seed)  # the same mask on every evaluation
        return F.dropout(t, 0.3, True) ** 3

    gradgradcheck(ctx, fn, ctx.rng.standard_normal(12))


@case("checkpoint-rng-state")
def dropout_restore(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch.nn.functional as F
    from _torchhelp import rng_state

    get_state, set_state = rng_state(ctx)
    x = ctx.put(np.ones(256, dtype="float32"))
    state = get_state()
    first = ctx.to_numpy(F.dropout(x, 0.5, True))
    second = ctx.to_numpy(F.dropout(x, 0.5, True))

    def replay():
        set_state(state)
        return F.dropout(x, 0.5, True)

    ctx.check(not np.array_equal(first, second), "two draws gave one mask (p = 2^-256)")
    ctx.check_equal(ctx.measure(replay, warm=False), first)


@sweep(
    "flags-p{p}-{phase}-{inplace}",
    p=["0.25", "0.5"],
    phase=["training", "eval"],
    inplace=["copy", "inplace"],
)
def dropout_grid(ctx, p, phase, inplace):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    import torch.nn.functional as F

    prob, training, in_place = float(p), phase == "training", inplace == "inplace"
    torch.manual_seed(ctx.seed)
    x = ctx.put(np.full(4096, 2.0, dtype="float32"))
    out = ctx.measure(F.dropout, x, prob, training, in_place, warm=False)
    got = np.asarray(ctx.to_numpy(out), dtype="float64")
    if not training:  # the input itself comes back, whatever inplace says
        ctx.check_equal(got, np.full(4096, 2.0))
        return
    ctx.check((out.data_ptr() == x.data_ptr()) == in_place, f"inplace={in_place} aliasing")
    kept = got != 0
    ctx.check_close(got[kept], np.full(int(kept.sum()), 2.0 / (1 - prob)), dtype="float32")
    dropped = float((got == 0).mean())
    ctx.check(abs(dropped - prob) < 0.05, f"dropped share {dropped:.3f}, expected {prob}")
