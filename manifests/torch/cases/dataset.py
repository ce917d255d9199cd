"""torch.utils.data.Dataset: a map-style dataset subclass served by DataLoader (batches,
shuffling with a seeded generator), and concatenation with +."""

import numpy as np

from portbench_runner.api import case


def _squares(n):
    from torch.utils.data import Dataset

    class Squares(Dataset):
        def __len__(self):
            return n

        def __getitem__(self, index):
            return index, index * index

    return Squares()


@case("dataloader-batches")
@case("dataloader-batches-large", n=10_000, batch=256)
def dataset_batches(ctx, n=100, batch=16):
    from torch.utils.data import DataLoader

    loader = DataLoader(_squares(n), batch_size=batch)
    # Loading is host-side by design: batches are CPU tensors, read here as NumPy.
    batches = ctx.measure(lambda: [(b[0].numpy(), b[1].numpy()) for b in loader])
    ctx.check_equal(np.concatenate([b[0] for b in batches]), np.arange(n))
    ctx.check_equal(np.concatenate([b[1] for b in batches]), np.arange(n) ** 2)


@case("seeded-shuffle")
def dataset_shuffle(ctx):
    import torch
    from torch.utils.data import DataLoader

    def order(seed):
        gen = torch.Generator()
        gen.manual_seed(seed)
        return np.concatenate(
            [
                b[0].numpy()
                for b in DataLoader(_squares(50), batch_size=7, shuffle=True, generator=gen)
            ]
        )

    first = ctx.measure(order, ctx.seed)
    ctx.check(
        np.array_equal(np.sort(first), np.arange(50)) and np.array_equal(first, order(ctx.seed)),
        "shuffle not a seeded permutation",
    )


@case("add-concatenates")
def dataset_add(ctx):
    both = ctx.measure(lambda: _squares(3) + _squares(2))
    ctx.check(len(both) == 5 and both[4] == (1, 1), f"len {len(both)}, last {both[4]}")
