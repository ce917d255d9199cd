"""torch.Tensor.is_same_size: shape equality, regardless of dtype and values."""

import numpy as np
from _torchhelp import ALL_INTS, BOOL, COMPLEXES, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


@case("same-shape", a=(3, 4), b=(3, 4), expected=True)
@case("different-shape", a=(3, 4), b=(4, 3), expected=False)
@case("different-rank", a=(12,), b=(3, 4), expected=False)
@case("empty", a=(0, 2), b=(0, 2), expected=True)
def is_same_size_values(ctx, a, b, expected):
    x = ctx.put(np.zeros(a, dtype="float32"))
    y = ctx.put(np.ones(b, dtype="float32"))
    ctx.check(ctx.measure(x.is_same_size, y) is expected, f"is_same_size{a, b} is not {expected}")


@case("dtype-ignored")
def is_same_size_dtypes(ctx):
    x = ctx.put(np.zeros((5,), dtype="float64"))
    y = ctx.put(np.zeros((5,), dtype="int32"))
    ctx.check(ctx.measure(x.is_same_size, y) is True, "dtype changed the answer")


# Every dtype, against a tensor of another dtype: only shapes count.
@sweep("{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS + COMPLEXES + ALL_INTS + BOOL)
def is_same_size_dtypes_sweep(ctx, dtype):
    x = ctx.put(np.zeros((2, 3), dtype="float32"), dtype=dtype)
    same = ctx.put(np.ones((2, 3), dtype="int64"))
    other = ctx.put(np.ones((3, 2), dtype="int64"))
    ctx.check(ctx.measure(x.is_same_size, same) is True, "same shape, other dtype: False")
    ctx.check(x.is_same_size(other) is False, "(2, 3) and (3, 2) called the same size")


@sweep(
    "{form}-sweep",
    form=["scalars", "scalar-vs-one", "views", "broadcastable-is-not-same", "sparse"],
)
def is_same_size_forms(ctx, form):
    x = ctx.put(np.zeros((4, 6), dtype="float32"))
    if form == "scalars":
        got, want = ctx.measure(ctx.put(np.float32(1)).is_same_size, ctx.put(np.float32(2))), True
    elif form == "scalar-vs-one":
        got, want = ctx.measure(ctx.put(np.float32(1)).is_same_size, ctx.put(np.ones(1))), False
    elif form == "views":
        # A transposed view of a (6, 4) tensor has shape (4, 6): strides do not matter.
        other = ctx.put(np.zeros((6, 4), dtype="float32")).t()
        got, want = ctx.measure(x.is_same_size, other), True
    elif form == "broadcastable-is-not-same":
        got, want = ctx.measure(x.is_same_size, ctx.put(np.zeros((1, 6)))), False
    else:
        if ctx.flavor not in ("cpu", "cuda"):
            ctx.skip(f"sparse COO tensors are CPU/CUDA only (this is {ctx.flavor})")
        got, want = ctx.measure(x.to_sparse().is_same_size, x), True
    ctx.check(got is want, f"is_same_size gave {got}, not {want}")


# The study's kinds of paths (issue #33): the refusal of a non-tensor argument (class and
# message) and indexing forms: rows, columns, slices and advanced picks compared by shape.
@case("raises-not-a-tensor")
def is_same_size_raises(ctx):
    from _torchhelp import refusal

    x = ctx.put(np.zeros((2, 3), dtype="float32"))
    refusal(ctx, lambda: x.is_same_size(3), TypeError, "must be Tensor")


@sweep(
    "index-{form}",
    form=["row-vs-row", "row-vs-column", "slice-vs-slice", "step-slice", "advanced-vs-slice"],
)
def is_same_size_indexing(ctx, form):
    x = ctx.put(np.zeros((4, 6), dtype="float32"))
    y = ctx.put(np.ones((4, 6), dtype="float32"))
    pair, want = {
        "row-vs-row": ((x[0], y[3]), True),
        "row-vs-column": ((x[0], y[:, 0]), False),  # (6,) against (4,)
        "slice-vs-slice": ((x[1:3], y[2:]), True),
        "step-slice": ((x[:, ::2], y[:, :3]), True),
        "advanced-vs-slice": ((x[[0, 2, 3]], y[1:]), True),
    }[form]
    got = ctx.measure(pair[0].is_same_size, pair[1])
    ctx.check(got is want, f"{form}: is_same_size gave {got}, not {want}")
