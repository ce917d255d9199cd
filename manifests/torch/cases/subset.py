"""torch.utils.data.Subset: a view of a dataset at given indices (order, repeats, loaders)."""

import numpy as np

from portbench_runner.api import case


@case("indices-in-order")
def subset_order(ctx):
    from torch.utils.data import Subset

    sub = ctx.measure(Subset, list(range(100, 110)), [9, 0, 5])
    ctx.check([sub[i] for i in range(len(sub))] == [109, 100, 105], "wrong elements")


@case("random-split-partitions")
def subset_random_split(ctx):
    import torch
    from torch.utils.data import random_split

    gen = torch.Generator()
    gen.manual_seed(ctx.seed)
    parts = ctx.measure(random_split, list(range(100)), [70, 30], generator=gen)
    values = sorted(list(parts[0]) + list(parts[1]))
    ctx.check(len(parts[0]) == 70 and values == list(range(100)), "random_split is not a partition")


@case("through-dataloader")
def subset_loader(ctx):
    import torch
    from torch.utils.data import DataLoader, Subset, TensorDataset

    data = TensorDataset(torch.arange(20.0))
    sub = Subset(data, list(range(0, 20, 4)))
    # Loading is host-side by design: batches are CPU tensors, read here as NumPy.
    batches = ctx.measure(lambda: [b[0].numpy() for b in DataLoader(sub, batch_size=2)])
    ctx.check_equal(np.concatenate(batches), [0.0, 4.0, 8.0, 12.0, 16.0])
