"""torch.Tensor.data_ptr: the address of the first element; views share it or offset it."""

import numpy as np
from _torchhelp import ALL_INTS, BOOL, COMPLEXES, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


@case("view-shares-storage")
def data_ptr_view(ctx):
    x = ctx.put(np.zeros((4, 4), dtype="float32"))
    view = x.view(16)
    ctx.check(ctx.measure(view.data_ptr) == x.data_ptr(), "a view has its own storage")


@case("slice-offsets-by-element-size")
@case("slice-offsets-float64", dtype="float64")
def data_ptr_slice(ctx, dtype="float32"):
    x = ctx.put(np.zeros(10, dtype=dtype))
    offset = ctx.measure(x[3:].data_ptr) - x.data_ptr()
    ctx.check(offset == 3 * x.element_size(), f"slice offset {offset} bytes")


@case("clone-has-new-storage")
def data_ptr_clone(ctx):
    x = ctx.put(np.zeros(100, dtype="float32"))
    clone = x.clone()
    ctx.check(ctx.measure(clone.data_ptr) != x.data_ptr(), "clone shares storage")


# Every dtype: a slice is offset by its element size, a view shares the address, a copy
# does not; element_size is the dtype's width.
@sweep("{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS + COMPLEXES + ALL_INTS + BOOL)
def data_ptr_dtypes(ctx, dtype):
    import torch

    width = 2 if dtype == "bfloat16" else np.dtype(dtype).itemsize
    x = ctx.put(np.zeros(12, dtype="float32"), dtype=dtype)
    ctx.check(x.element_size() == width, f"element_size {x.element_size()}, not {width}")
    offset = ctx.measure(x[5:].data_ptr) - x.data_ptr()
    ctx.check(offset == 5 * width, f"slice offset {offset} bytes, not {5 * width}")
    ctx.check(x.view(3, 4).data_ptr() == x.data_ptr(), "a view moved the first element")
    ctx.check(torch.clone(x).data_ptr() != x.data_ptr(), "a clone shares the address")


@sweep("{form}-sweep", form=["transpose", "column-slice", "empty", "in-place-keeps", "storage"])
def data_ptr_forms(ctx, form):
    x = ctx.put(np.zeros((4, 6), dtype="float32"))
    if form == "transpose":
        # A transpose starts at the same element; only its strides differ.
        ctx.check(ctx.measure(x.t().data_ptr) == x.data_ptr(), "transpose moved the start")
    elif form == "column-slice":
        # x[1:, 2:] starts at row 1, column 2: (1 * 6 + 2) elements in.
        offset = ctx.measure(x[1:, 2:].data_ptr) - x.data_ptr()
        ctx.check(offset == 8 * 4, f"offset {offset} bytes, not 32")
    elif form == "empty":
        # An empty tensor has no elements; its data_ptr is 0 on every device (no allocation).
        empty = ctx.put(np.zeros(0, dtype="float32"))
        ctx.check(ctx.measure(empty.data_ptr) == 0, f"empty data_ptr {empty.data_ptr()}")
    elif form == "in-place-keeps":
        before = x.data_ptr()
        x.add_(1).mul_(2)
        ctx.check(ctx.measure(x.data_ptr) == before, "an in-place op moved the storage")
    else:
        ptr = ctx.measure(x.data_ptr)
        storage = x.untyped_storage() if hasattr(x, "untyped_storage") else x.storage()
        ctx.check(storage.data_ptr() == ptr, "the storage's pointer is not the tensor's")


# The study's kinds of paths (issue #33): the documented refusal of tensors without storage
# (sparse; a tensor under vmap), class and message; and indexing forms: where basic
# indexing starts a view (an integer row, a negative row, a step slice) and that advanced
# indexing copies.
@sweep("raises-{arg}", arg=["sparse", "under-vmap"])
def data_ptr_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal, vmap

    if arg == "sparse":
        if ctx.flavor not in ("cpu", "cuda"):
            ctx.skip(f"sparse COO tensors are CPU/CUDA only (this is {ctx.flavor})")
        s = ctx.put(np.eye(3, dtype="float32")).to_sparse()
        attempt = s.data_ptr
    else:
        batched = vmap(ctx)
        x = ctx.put(np.zeros((2, 3), dtype="float32"))
        attempt = lambda: batched(lambda r: torch.full((), float(r.data_ptr())))(x)  # noqa: E731
    refusal(
        ctx, attempt, RuntimeError, "Cannot access data pointer of Tensor that doesn't have storage"
    )


@sweep("index-{form}", form=["integer-row", "negative-row", "slice-step", "advanced-copies"])
def data_ptr_indexing(ctx, form):
    x = ctx.put(np.zeros((5, 6), dtype="float64"))
    base, size = x.data_ptr(), x.element_size()
    if form == "integer-row":
        ctx.check(ctx.measure(x[2].data_ptr) - base == 2 * 6 * size, "x[2] is not 12 elements in")
    elif form == "negative-row":
        ctx.check(ctx.measure(x[-1].data_ptr) - base == 4 * 6 * size, "x[-1] is not 24 elements in")
    elif form == "slice-step":
        view = x[1::2, ::3]
        ctx.check(
            ctx.measure(view.data_ptr) - base == 6 * size, "x[1::2, ::3] is not 6 elements in"
        )
        ctx.check(view.stride() == (12, 3), f"strides {view.stride()}")
    else:
        picked = x[[0, 2]]
        ctx.check(ctx.measure(picked.data_ptr) != base, "advanced indexing returned a view")
