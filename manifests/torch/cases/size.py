"""torch.Tensor.size: the shape as torch.Size, per dimension, negative dims, empty tensors."""

import numpy as np
from _torchhelp import COMPLEX_DTYPES, FLOAT_DTYPES, INT_DTYPES, MODES

from portbench_runner.api import case, sweep


@case("3d", shape=(2, 3, 4))
@case("scalar", shape=())
@case("empty", shape=(0, 5))
@case("large", shape=(1000, 1000))
def size_values(ctx, shape):
    import torch

    x = ctx.put(np.zeros(shape, dtype="float32"))
    out = ctx.measure(x.size)
    ctx.check(isinstance(out, torch.Size) and tuple(out) == shape, f"size() gave {out}")


@case("per-dimension")
def size_dims(ctx):
    x = ctx.put(np.zeros((2, 3, 4), dtype="float32"))
    out = ctx.measure(lambda: (x.size(0), x.size(-1), x.size(1)))
    ctx.check(out == (2, 4, 3), f"size(dim) gave {out}")


@case("dim-out-of-range")
def size_bad_dim(ctx):
    x = ctx.put(np.zeros((2, 3), dtype="float32"))

    def attempt():
        try:
            x.size(2)
        except IndexError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "size(2) of a 2-d tensor did not raise")


# The shape does not depend on the dtype, but each dtype is its own tensor type to the
# dispatcher and to torch.compile's guards: size() must read the same for all.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOAT_DTYPES + COMPLEX_DTYPES + INT_DTYPES + ("bool",),
    mode=MODES,
)
def size_dtypes(ctx, dtype, mode):
    import torch

    x = torch.zeros((2, 0, 5) if dtype == "bool" else (2, 3, 5), dtype=getattr(torch, dtype))
    x = x.to(ctx.device)
    out = ctx.measure(ctx.in_mode(mode, lambda t: (t.size(), t.size(-1))), x)
    want = ((2, 0, 5) if dtype == "bool" else (2, 3, 5), 5)
    ctx.check(tuple(out[0]) == want[0] and out[1] == want[1], f"size() gave {out}")


@sweep(
    "{form}-form",
    form=["non-contiguous", "expanded", "dim-keyword", "unpacks", "matches-shape", "bad-dim-type"],
)
def size_forms(ctx, form):

    x = ctx.put(np.zeros((4, 6), dtype="float32"))
    if form == "non-contiguous":
        out, want = ctx.measure(x[:, ::2].t().size), (3, 4)
    elif form == "expanded":
        # An expanded view has stride 0 along the new dim but reports the broadcast size.
        out, want = ctx.measure(x[:1].expand(5, 6).size), (5, 6)
    elif form == "dim-keyword":
        out, want = ctx.measure(lambda: x.size(dim=1)), 6
    elif form == "unpacks":
        rows, cols = ctx.measure(x.size)
        out, want = (rows, cols), (4, 6)
    elif form == "matches-shape":
        out = ctx.measure(x.size)
        ctx.check(out == x.shape and out.numel() == 24, "size() and shape disagree", "other")
        want = (4, 6)
    else:

        def attempt():
            try:
                x.size("0")
            except (TypeError, RuntimeError):  # 1.12 reads a string as a dimension name
                return True
            return False

        out, want = ctx.measure(attempt), True
    ctx.check(
        (tuple(out) if not isinstance(out, (int, bool)) else out) == want,
        f"{form}: got {out}, want {want}",
    )


# The study's kinds of paths (issue #33): indexing and slicing of the torch.Size container
# (a negative index, a slice that stays a torch.Size, a step slice, an index past the end
# refused as tuples refuse it), and sizes read inside vmap (the sample's, not the batch's).
@sweep("index-{form}", form=["negative", "slice", "slice-step", "numel-of-slice"])
def size_indexing(ctx, form):
    import torch

    s = ctx.put(np.zeros((2, 3, 4, 5), dtype="float32")).size()
    got, want = {
        "negative": (lambda: s[-2], 4),
        "slice": (lambda: s[1:3], (3, 4)),
        "slice-step": (lambda: s[::2], (2, 4)),
        "numel-of-slice": (s[1:].numel, 60),
    }[form]
    out = ctx.measure(got)
    if form in ("slice", "slice-step"):
        ctx.check(isinstance(out, torch.Size), f"a slice of torch.Size is a {type(out).__name__}")
        out = tuple(out)
    ctx.check(out == want, f"{form}: {out}, not {want}")


@case("raises-index-past-end")
def size_index_raises(ctx):
    from _torchhelp import refusal

    s = ctx.put(np.zeros((2, 3), dtype="float32")).size()
    refusal(ctx, lambda: s[2], IndexError, "tuple index out of range")


@case("vmap-sample-size")
def size_vmap(ctx):
    from _torchhelp import vmap

    def sizes(t):
        # Inside vmap size() is the sample's (3, 4); the batch dim is invisible.
        return t.new_tensor([t.size(0), t.size(-1), t.dim()])

    x = ctx.put(np.zeros((5, 3, 4), dtype="float32"))
    ctx.check_equal(ctx.measure(vmap(ctx)(sizes), x), np.tile([3, 4, 2], (5, 1)))
