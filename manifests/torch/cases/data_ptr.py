"""torch.Tensor.data_ptr: the address of the first element; views share it or offset it."""

import numpy as np

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
