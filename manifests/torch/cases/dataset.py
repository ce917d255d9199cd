"""torch.utils.data.Dataset: a map-style dataset subclass served by DataLoader (batches,
shuffling with a seeded generator), and concatenation with +."""

import numpy as np
from _torchhelp import ALL_INTS, BOOL, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


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


# Items of every dtype a user's Dataset returns keep it through the default collate.
@sweep("collate-{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS + ALL_INTS + BOOL)
def dataset_dtypes(ctx, dtype):
    import torch
    from _torchhelp import host_values, small_ints
    from torch.utils.data import DataLoader, Dataset

    # Small integers, exact in every dtype (bfloat16 included), so values compare exactly.
    rows = small_ints(ctx, (10, 3), dtype)
    torch_dtype = getattr(torch, dtype)

    class Rows(Dataset):
        def __len__(self):
            return len(rows)

        def __getitem__(self, i):
            return torch.from_numpy(rows[i].copy()).to(torch_dtype)

    # Loading is host-side by design: the measured call hands back NumPy copies.
    dtypes, arrays = ctx.measure(lambda: host_values(list(DataLoader(Rows(), batch_size=4))))
    ctx.check([len(b) for b in arrays] == [4, 4, 2], "batch sizes")
    ctx.check(all(d == torch_dtype for d in dtypes), "a batch changed dtype")
    ctx.check_equal(np.concatenate(arrays), rows)


@sweep(
    "{form}-sweep",
    form=[
        "drop-last",
        "dict-items",
        "tuple-of-numpy",
        "batch-size-none",
        "sampler",
        "random-split",
        "subset",
        "getitem-unimplemented",
    ],
)
def dataset_forms(ctx, form):
    import torch
    from _torchhelp import host_values
    from torch.utils.data import DataLoader, Dataset, Subset, random_split

    squares = _squares(10)
    if form == "drop-last":
        got = ctx.measure(lambda: [len(b[0]) for b in DataLoader(squares, 4, drop_last=True)])
        ctx.check(got == [4, 4], f"batch sizes {got}")
    elif form == "dict-items":

        class Dicts(Dataset):
            def __len__(self):
                return 5

            def __getitem__(self, i):
                return {"x": float(i), "y": i * 2}

        (batch,) = ctx.measure(
            lambda: [
                {k: (v.dtype, v.numpy()) for k, v in b.items()} for b in DataLoader(Dicts(), 5)
            ]
        )
        ctx.check(set(batch) == {"x", "y"}, f"keys {set(batch)}")
        ctx.check_equal(batch["x"][1], np.arange(5.0))
        ctx.check(batch["y"][0] == torch.int64, f"ints collated as {batch['y'][0]}")
    elif form == "tuple-of-numpy":

        class Arrays(Dataset):
            def __len__(self):
                return 6

            def __getitem__(self, i):
                return np.full(2, i, dtype="float32"), np.int16(i)

        (dx, dy), (xs, _) = ctx.measure(
            lambda: host_values(next(iter(DataLoader(Arrays(), batch_size=6))))
        )
        ctx.check(dx == torch.float32 and dy == torch.int16, f"collated as {dx} {dy}")
        ctx.check_equal(xs[:, 0], np.arange(6.0))
    elif form == "batch-size-none":
        items = ctx.measure(lambda: list(DataLoader(squares, batch_size=None)))
        ctx.check(len(items) == 10 and int(items[3][1]) == 9, "unbatched loading")
    elif form == "sampler":
        loader = DataLoader(squares, batch_size=3, sampler=[9, 0, 4, 4])
        got = ctx.measure(lambda: [int(v) for b in loader for v in b[1]])
        ctx.check(got == [81, 0, 16, 16], f"items {got}")
    elif form == "random-split":
        gen = torch.Generator()
        gen.manual_seed(ctx.seed)
        a, b = ctx.measure(random_split, squares, [7, 3], generator=gen)
        idx = sorted([a[i][0] for i in range(7)] + [b[i][0] for i in range(3)])
        ctx.check(len(a) == 7 and len(b) == 3 and idx == list(range(10)), "not a partition")
    elif form == "subset":
        sub = ctx.measure(Subset, squares, [8, 2])
        ctx.check(len(sub) == 2 and sub[0] == (8, 64) and sub[1] == (2, 4), "subset items")
    else:
        # The base class leaves __getitem__ to subclasses.
        def attempt():
            try:
                Dataset()[0]
            except NotImplementedError:
                return True
            return False

        ctx.check(ctx.measure(attempt), "Dataset.__getitem__ did not raise", "other")


# The study's kinds of paths (issue #33): DataLoader's documented refusals of a Dataset
# with conflicting options (class and message); the full grid of shuffle x drop_last x
# batch size; and checkpoint/restore of the iteration: a shuffled epoch replayed from the
# generator's saved state, a run resumed mid-epoch by skipping the batches already seen,
# and a RandomSampler restored the same way.
@sweep("raises-{arg}", arg=["batch-size-zero", "shuffle-and-sampler", "batch-sampler-and-size"])
def dataset_refusals(ctx, arg):
    from _torchhelp import refusal
    from torch.utils.data import DataLoader

    squares = _squares(10)
    attempt, fragment = {
        "batch-size-zero": (
            lambda: DataLoader(squares, batch_size=0),
            "batch_size should be a positive integer value",
        ),
        "shuffle-and-sampler": (
            lambda: DataLoader(squares, shuffle=True, sampler=[0, 1]),
            "sampler option is mutually exclusive with shuffle",
        ),
        "batch-sampler-and-size": (
            lambda: DataLoader(squares, batch_size=2, batch_sampler=[[0, 1]]),
            "batch_sampler option is mutually exclusive",
        ),
    }[arg]
    refusal(ctx, attempt, ValueError, fragment)


@sweep(
    "flags-{order}-{last}-batch{batch}",
    order=["sequential", "shuffled"],
    last=["keep-last", "drop-last"],
    batch=["3", "4"],
)
def dataset_grid(ctx, order, last, batch):
    import torch
    from torch.utils.data import DataLoader

    n, size = 10, int(batch)
    gen = torch.Generator()
    gen.manual_seed(ctx.seed)
    loader = DataLoader(
        _squares(n),
        batch_size=size,
        shuffle=order == "shuffled",
        drop_last=last == "drop-last",
        generator=gen,
    )
    batches = ctx.measure(lambda: [b[0].tolist() for b in loader], warm=False)
    full, rest = divmod(n, size)
    want_sizes = [size] * full + ([rest] if rest and last == "keep-last" else [])
    ctx.check([len(b) for b in batches] == want_sizes, f"batch sizes {[len(b) for b in batches]}")
    seen = [i for b in batches for i in b]
    ctx.check(len(set(seen)) == len(seen) and set(seen) <= set(range(n)), f"items {seen}")
    if order == "sequential":
        ctx.check(seen == list(range(len(seen))), f"sequential order {seen}")
    if last == "keep-last":
        ctx.check(sorted(seen) == list(range(n)), f"an epoch missed items: {sorted(seen)}")


@sweep("checkpoint-{form}", form=["epoch-from-generator-state", "mid-epoch", "random-sampler"])
def dataset_restore(ctx, form):
    import torch
    from torch.utils.data import DataLoader, RandomSampler

    squares = _squares(23)
    gen = torch.Generator()
    gen.manual_seed(ctx.seed)
    if form == "random-sampler":
        sampler = RandomSampler(squares, generator=gen)
        state = gen.get_state()
        first = list(sampler)

        def replay():
            gen.set_state(state)
            return list(sampler)

        ctx.check(sorted(first) == list(range(23)), "the sampler is not a permutation")
        ctx.check(
            ctx.measure(replay, warm=False) == first, "the restored sampler drew another order"
        )
        return
    loader = DataLoader(squares, batch_size=5, shuffle=True, generator=gen)
    state = gen.get_state()
    epoch = [b[0].tolist() for b in loader]
    if form == "epoch-from-generator-state":

        def replay():
            gen.set_state(state)
            return [b[0].tolist() for b in loader]

        ctx.check(ctx.measure(replay, warm=False) == epoch, "the restored state drew another epoch")
        return
    # Resume after two batches: a new loader whose generator is restored to the epoch's
    # start, with the two batches already seen skipped, serves the rest of that epoch.
    resumed_gen = torch.Generator()
    resumed_gen.set_state(state)
    resumed = DataLoader(squares, batch_size=5, shuffle=True, generator=resumed_gen)

    def resume():
        it = iter(resumed)
        for _ in range(2):
            next(it)
        return [b[0].tolist() for b in it]

    ctx.check(ctx.measure(resume, warm=False) == epoch[2:], "the resumed epoch differs")
