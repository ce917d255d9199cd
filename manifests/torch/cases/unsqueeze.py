"""torch.unsqueeze: insert a size-1 dimension at each position, negative dims, views."""

import numpy as np

from portbench_runner.api import case


@case("dim0", dim=0)
@case("dim-middle", dim=1)
@case("dim-last", dim=-1)
@case("scalar", dim=0, shape=())
@case("bool", dim=2, dtype="bool")
def unsqueeze_values(ctx, dim, shape=(3, 4), dtype="float32"):
    import torch

    x = ctx.rng.standard_normal(shape).astype("float32")
    x = x > 0 if dtype == "bool" else x
    ctx.check_equal(ctx.measure(torch.unsqueeze, ctx.put(x), dim), np.expand_dims(x, dim))


@case("out-of-range-refused")
def unsqueeze_bad_dim(ctx):
    import torch

    x = ctx.put(np.zeros((2, 2)))

    def attempt():
        try:
            torch.unsqueeze(x, 5)
        except IndexError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "unsqueeze accepted dim=5 for a 2-d tensor")


@case("large-is-a-view")
def unsqueeze_view(ctx):
    import torch

    x = ctx.put(np.zeros((1000, 1000), dtype="float32"))
    out = ctx.measure(torch.unsqueeze, x, 1)
    ctx.check(out.data_ptr() == x.data_ptr() and tuple(out.shape) == (1000, 1, 1000), "not a view")
