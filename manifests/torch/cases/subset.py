"""torch.utils.data.Subset: a view of a dataset at given indices (order, repeats, loaders)."""

import numpy as np

from portbench_runner.api import case, sweep


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


# The index forms users pass: Python sequences, ranges, NumPy and torch integer arrays,
# negative, repeated and empty index lists; every one must map positions to dataset items.
@sweep(
    "{kind}-indices",
    kind=[
        "tuple",
        "range",
        "numpy-int64",
        "numpy-int32",
        "tensor-int64",
        "tensor-int32",
        "negative",
        "repeated",
        "empty",
    ],
)
def subset_index_forms(ctx, kind):
    import torch
    from torch.utils.data import Subset

    data = [10 * i for i in range(20)]
    picks = {"negative": [-1, -20, 3], "repeated": [4, 4, 0, 4], "empty": []}.get(kind, [7, 2, 19])
    indices = {
        "tuple": tuple(picks),
        "range": range(2, 20, 6),
        "numpy-int64": np.array(picks, dtype="int64"),
        "numpy-int32": np.array(picks, dtype="int32"),
        "tensor-int64": torch.tensor(picks, dtype=torch.int64),
        "tensor-int32": torch.tensor(picks, dtype=torch.int32),
    }.get(kind, picks)
    sub = ctx.measure(Subset, data, indices)
    got = [int(sub[i]) for i in range(len(sub))]
    want = [data[int(i)] for i in indices]
    ctx.check(got == want, f"{kind}: items {got}, expected {want}")


@sweep(
    "{form}-form",
    form=["device-tensors", "nested", "getitems-batch", "shuffled-loader", "split-fractions"],
)
def subset_forms(ctx, form):
    import torch
    from torch.utils.data import DataLoader, Subset, TensorDataset, random_split

    if form == "device-tensors":
        # A Subset of a TensorDataset on the device hands back device tensors, not copies.
        x = ctx.put(np.arange(24, dtype="float32").reshape(12, 2))
        y = ctx.put(np.arange(12, dtype="int64"))
        sub = Subset(TensorDataset(x, y), [11, 0, 5])
        item = ctx.measure(sub.__getitem__, 2)
        ctx.check(item[0].device.type == ctx.device.type, f"item on {item[0].device}")
        ctx.check_equal(item[0], [10.0, 11.0])
        ctx.check_equal(item[1], 5)
    elif form == "nested":
        inner = Subset(list(range(100)), list(range(50, 100)))
        outer = ctx.measure(Subset, inner, [0, 49, 10])
        ctx.check([outer[i] for i in range(3)] == [50, 99, 60], "nested indices did not compose")
    elif form == "getitems-batch":
        # DataLoader fetches a batch at once through __getitems__ where it exists (2.1+).
        if not hasattr(Subset, "__getitems__"):
            ctx.skip(f"Subset.__getitems__ arrived in torch 2.1 ({ctx.version})")
        sub = Subset(list(range(100, 120)), [3, 1, 4, 1, 5])
        got = ctx.measure(sub.__getitems__, [0, 2, 4])
        ctx.check(list(got) == [103, 104, 105], f"__getitems__ gave {got}")
    elif form == "shuffled-loader":
        gen = torch.Generator()
        gen.manual_seed(ctx.seed)
        sub = Subset(TensorDataset(torch.arange(40)), list(range(0, 40, 3)))

        def load():
            return [
                int(v)
                for (batch,) in DataLoader(sub, batch_size=4, shuffle=True, generator=gen)
                for v in batch
            ]

        got = ctx.measure(load, warm=False)
        ctx.check(sorted(got) == list(range(0, 40, 3)), f"a shuffled epoch gave {sorted(got)}")
        ctx.check(got != list(range(0, 40, 3)), "shuffle=True kept the order (p ~ 1/14!)")
    else:
        gen = torch.Generator()
        gen.manual_seed(ctx.seed)
        if not ctx.version_at_least("1.13"):
            ctx.skip(f"random_split with fractions arrived in torch 1.13 ({ctx.version})")
        parts = ctx.measure(random_split, list(range(10)), [0.7, 0.3], generator=gen)
        ctx.check([len(p) for p in parts] == [7, 3], f"split sizes {[len(p) for p in parts]}")
        ctx.check(sorted(list(parts[0]) + list(parts[1])) == list(range(10)), "not a partition")


# The study's kinds of paths (issue #33): a list index (a batch of items at once, passed
# to the dataset as one list), the refusal of an index past the subset (class and
# message), and a shuffled epoch over a Subset restored from its generator's saved state.
@case("index-list-batch")
def subset_list_index(ctx):
    import torch
    from torch.utils.data import Subset, TensorDataset

    data = TensorDataset(torch.arange(10.0) * 3)
    sub = Subset(data, [9, 4, 7, 1])
    (got,) = ctx.measure(sub.__getitem__, [0, 2, 3])
    ctx.check_equal(got, [27.0, 21.0, 3.0])


@case("raises-index-past-end")
def subset_raises(ctx):
    from _torchhelp import refusal
    from torch.utils.data import Subset

    sub = Subset(list(range(10)), [3, 4])
    refusal(ctx, lambda: sub[2], IndexError, "list index out of range")


@case("checkpoint-shuffle-generator-state")
def subset_restore(ctx):
    import torch
    from torch.utils.data import DataLoader, Subset

    sub = Subset(list(range(100)), list(range(0, 100, 7)))
    gen = torch.Generator()
    gen.manual_seed(ctx.seed)
    loader = DataLoader(sub, batch_size=3, shuffle=True, generator=gen)
    state = gen.get_state()
    first = [int(v) for b in loader for v in b]

    def replay():
        gen.set_state(state)
        return [int(v) for b in loader for v in b]

    ctx.check(sorted(first) == list(range(0, 100, 7)), "the epoch is not the subset")
    ctx.check(ctx.measure(replay, warm=False) == first, "the restored state drew another order")
