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
