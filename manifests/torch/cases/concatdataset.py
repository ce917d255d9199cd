"""torch.utils.data.ConcatDataset: indices run across the parts; lengths, negatives, tensors."""

import numpy as np
from _torchhelp import ALL_INTS, BOOL, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


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


# Items keep their dtype through ConcatDataset and the default collate, for every dtype a
# TensorDataset holds.
@sweep("tensor-{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS + ALL_INTS + BOOL)
def concat_dtypes(ctx, dtype):
    import torch
    from _torchhelp import host_values, small_ints
    from torch.utils.data import ConcatDataset, DataLoader, TensorDataset

    # Small integers, exact in every dtype (bfloat16 included), so values compare exactly.
    a_np, b_np = small_ints(ctx, (5, 3), dtype), small_ints(ctx, (4, 3), dtype)
    # Host-side tensors: datasets are read on the host and batches moved by the user.
    a = TensorDataset(torch.from_numpy(a_np).to(getattr(torch, dtype)))
    b = TensorDataset(torch.from_numpy(b_np).to(getattr(torch, dtype)))
    both = ConcatDataset([a, b])
    # Loading is host-side by design: the measured call hands back NumPy copies.
    dtypes, arrays = ctx.measure(lambda: host_values([t[0] for t in DataLoader(both, 4)]))
    ctx.check(all(d == getattr(torch, dtype) for d in dtypes), "a batch changed dtype")
    got = np.concatenate(arrays)
    expected = np.concatenate([a_np, b_np])
    ctx.check_equal(got, expected)


@sweep(
    "{form}-sweep",
    form=[
        "cumulative-sizes",
        "empty-part-skipped",
        "nested",
        "shuffled-loader",
        "add-operator",
        "iterable-refused",
        "no-parts-refused",
        "slice-negative",
    ],
)
def concat_forms(ctx, form):
    import torch
    from torch.utils.data import ConcatDataset, DataLoader, IterableDataset

    parts = [list(range(3)), [], list(range(10, 14)), list(range(20, 22))]

    def refused(fn, errors):
        try:
            fn()
        except errors:
            return True
        return False

    if form == "cumulative-sizes":
        both = ctx.measure(ConcatDataset, parts)
        ctx.check(both.cumulative_sizes == [3, 3, 7, 9], f"cumulative {both.cumulative_sizes}")
    elif form == "empty-part-skipped":
        both = ConcatDataset(parts)
        got = ctx.measure(lambda: [both[i] for i in range(len(both))])
        ctx.check(got == [0, 1, 2, 10, 11, 12, 13, 20, 21], f"items {got}")
    elif form == "nested":
        inner = ConcatDataset(parts[:2])
        both = ctx.measure(ConcatDataset, [inner, parts[2]])
        ctx.check(len(both) == 7 and both[5] == 12, f"len {len(both)}, both[5] {both[5]}")
    elif form == "shuffled-loader":
        gen = torch.Generator()
        gen.manual_seed(ctx.seed)
        loader = DataLoader(ConcatDataset(parts), batch_size=4, shuffle=True, generator=gen)
        got = ctx.measure(lambda: sorted(int(v) for b in loader for v in b))
        ctx.check(got == [0, 1, 2, 10, 11, 12, 13, 20, 21], f"items {got}")
    elif form == "add-operator":
        both = ConcatDataset(parts[:1])
        longer = ctx.measure(lambda: both + ConcatDataset(parts[2:3]))
        ctx.check(isinstance(longer, ConcatDataset) and len(longer) == 7, f"{type(longer)}")
    elif form == "iterable-refused":

        class Stream(IterableDataset):
            def __iter__(self):
                return iter(range(3))

        ok = ctx.measure(refused, lambda: ConcatDataset([Stream()]), (AssertionError, TypeError))
        ctx.check(ok, "an IterableDataset was concatenated", "other")
    elif form == "no-parts-refused":
        ok = ctx.measure(refused, lambda: ConcatDataset([]), (AssertionError, ValueError))
        ctx.check(ok, "ConcatDataset([]) was accepted", "other")
    else:
        both = ConcatDataset(parts)
        ok = ctx.measure(refused, lambda: both[-10], (ValueError, IndexError))
        ctx.check(ok and both[-9] == 0, "negative indices past the start were served", "other")


# The study's kinds of paths (issue #33): each documented refusal with its class and
# message, index forms at the parts' edges (positive and negative, NumPy and 0-d tensor
# indices), the same part listed twice, and a shuffled epoch restored from its generator's
# saved state.
@sweep("raises-{arg}", arg=["iterable-part", "no-parts", "negative-past-start", "past-end"])
def concat_refusals(ctx, arg):
    from _torchhelp import refusal
    from torch.utils.data import ConcatDataset, IterableDataset

    class Stream(IterableDataset):
        def __iter__(self):
            return iter(range(3))

    both = ConcatDataset([[1, 2], [3]])
    attempt, error, fragment = {
        "iterable-part": (
            lambda: ConcatDataset([Stream()]),
            AssertionError,
            "does not support IterableDataset",
        ),
        "no-parts": (lambda: ConcatDataset([]), AssertionError, "should not be an empty iterable"),
        "negative-past-start": (
            lambda: both[-4],
            ValueError,
            "absolute value of index should not exceed dataset length",
        ),
        "past-end": (lambda: both[3], IndexError, "out of range"),
    }[arg]
    refusal(ctx, attempt, error, fragment)


@sweep("index-{form}", form=["part-edges", "negative-part-edges", "numpy-int", "tensor-0d"])
def concat_indexing(ctx, form):
    import torch
    from torch.utils.data import ConcatDataset

    parts = [list(range(0, 3)), list(range(10, 14)), list(range(20, 22))]
    both = ConcatDataset(parts)
    flat = [v for p in parts for v in p]
    picks = {
        "part-edges": [0, 2, 3, 6, 7, 8],
        "negative-part-edges": [-1, -2, -3, -6, -7, -9],
    }.get(form, [1, 4, 8])
    if form == "numpy-int":
        keys = [np.int64(i) for i in picks]
    elif form == "tensor-0d":
        keys = [torch.tensor(i) for i in picks]
    else:
        keys = picks
    got = ctx.measure(lambda: [int(both[k]) for k in keys])
    ctx.check(got == [flat[i] for i in picks], f"{form}: items {got}")


@case("duplicate-same-part-twice")
def concat_duplicates(ctx):
    from torch.utils.data import ConcatDataset

    part = [5, 6, 7]
    both = ctx.measure(ConcatDataset, [part, part, [9]])
    got = [both[i] for i in range(len(both))]
    ctx.check(got == [5, 6, 7, 5, 6, 7, 9], f"items {got}")
    ctx.check(both.cumulative_sizes == [3, 6, 7], f"cumulative {both.cumulative_sizes}")


@case("checkpoint-shuffle-generator-state")
def concat_restore(ctx):
    import torch
    from torch.utils.data import ConcatDataset, DataLoader

    both = ConcatDataset([list(range(7)), list(range(100, 109))])
    gen = torch.Generator()
    gen.manual_seed(ctx.seed)
    loader = DataLoader(both, batch_size=4, shuffle=True, generator=gen)
    state = gen.get_state()
    first = [int(v) for b in loader for v in b]
    second = [int(v) for b in loader for v in b]  # the generator moved on: another order

    def replay():
        gen.set_state(state)
        return [int(v) for b in loader for v in b]

    ctx.check(sorted(first) == sorted(list(range(7)) + list(range(100, 109))), "not a partition")
    ctx.check(first != second, "two epochs drew the same order (p ~ 1/16!)")
    ctx.check(ctx.measure(replay, warm=False) == first, "the restored state drew another order")
