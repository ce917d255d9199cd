"""torch.utils.data.ConcatDataset: indices run across the parts; lengths, negatives, tensors."""

import numpy as np

from portbench_runner.api import case


@case("tensor-datasets")
def concat_tensor_datasets(ctx):
    import torch
    from torch.utils.data import ConcatDataset, TensorDataset

    a = TensorDataset(torch.arange(5.0))
    b = TensorDataset(torch.arange(100.0, 103.0))
    both = ctx.measure(ConcatDataset, [a, b])
    ctx.check(len(both) == 8, f"len {len(both)}")
    ctx.check_equal(np.array([float(both[i][0]) for i in range(8)]), [0, 1, 2, 3, 4, 100, 101, 102])


@case("negative-index")
def concat_negative(ctx):
    from torch.utils.data import ConcatDataset

    both = ConcatDataset([list(range(3)), list(range(10, 14))])
    ctx.check(ctx.measure(both.__getitem__, -1) == 13, "both[-1] is not the last element")


@case("many-parts")
def concat_many(ctx):
    from torch.utils.data import ConcatDataset

    parts = [list(range(i * 10, i * 10 + 10)) for i in range(1000)]
    both = ctx.measure(ConcatDataset, parts)
    ctx.check(
        len(both) == 10_000 and both[9_999] == 9_999 and both[5_005] == 5_005, "wrong index mapping"
    )


@case("out-of-range")
def concat_out_of_range(ctx):
    from torch.utils.data import ConcatDataset

    both = ConcatDataset([[1, 2], [3]])

    def attempt():
        try:
            both[3]
        except (IndexError, ValueError):
            return True
        return False

    ctx.check(ctx.measure(attempt), "index 3 of a 3-element dataset was served")
