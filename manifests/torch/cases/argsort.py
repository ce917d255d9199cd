"""torch.argsort: orders along dims, descending, stable ties, dtypes."""

import numpy as np
from _torchhelp import ALL_INTS, EAGER_COMPILED, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


@case("float32-last-dim", dtype="float32", shape=(4, 2049))
@case("float64-dim0", dtype="float64", shape=(513, 7), dim=0)
@case("int32-descending", dtype="int32", shape=(1000,), descending=True)
@case("bfloat16", dtype="bfloat16", shape=(256,))
@case("float32-large", dtype="float32", shape=(1_000_000,))
def argsort_orders(ctx, dtype, shape, dim=-1, descending=False):
    import torch

    if dtype == "int32":
        # Distinct values, so the expected order is unique whatever the sort's stability.
        x = ctx.rng.permutation(int(np.prod(shape))).reshape(shape).astype("int32")
    else:
        x = ctx.rng.standard_normal(shape).astype("float32" if dtype == "bfloat16" else dtype)
    tensor = ctx.put(x, dtype=dtype)
    out = ctx.measure(torch.argsort, tensor, dim=dim, descending=descending)
    values = ctx.to_numpy(tensor)
    # Check the order the indices produce, not the indices: ties (bfloat16) may differ.
    gathered = np.take_along_axis(values, ctx.to_numpy(out), axis=dim)
    diffs = np.diff(gathered.astype("float64"), axis=dim)
    ctx.check(
        bool(np.all(diffs <= 0) if descending else np.all(diffs >= 0)),
        "indices do not sort the input",
    )
    ctx.check_equal(
        np.sort(ctx.to_numpy(out), axis=dim), np.sort(np.argsort(values, axis=dim), axis=dim)
    )


@case("stable-ties")
def argsort_stable(ctx):
    import torch

    if not ctx.version_at_least("1.13"):
        ctx.skip(f"torch.argsort has no stable= argument before 1.13 (this is {ctx.version})")
    x = np.array([3, 1, 3, 1, 2, 3], dtype="int64")
    out = ctx.measure(torch.argsort, ctx.put(x), stable=True)
    ctx.check_equal(out, np.argsort(x, kind="stable"))


# Every dtype torch.argsort orders on the CPU (complex has no order and is refused), in each
# mode, ascending and descending. Distinct values so the expected indices are unique.
@sweep(
    "{dtype}-{order}-{mode}-sweep",
    dtype=HALF_FLOATS + FULL_FLOATS + ALL_INTS,
    order=["ascending", "descending"],
    mode=EAGER_COMPILED,
)
def argsort_dtypes(ctx, dtype, order, mode):
    import torch

    n = 100 if dtype in ("int8", "uint8") else 200  # distinct values fit in the dtype
    perm = ctx.rng.permutation(n) - (n // 2 if dtype == "int8" else 0)
    x = (perm.astype("float64") / 4 if dtype in HALF_FLOATS + FULL_FLOATS else perm).astype(
        "float32" if dtype == "bfloat16" else dtype
    )  # quarters are exact in float16 and bfloat16 below 256
    descending = order == "descending"
    fn = ctx.in_mode(mode, lambda t: torch.argsort(t, descending=descending))
    out = ctx.measure(fn, ctx.put(x, dtype=dtype))
    expected = np.argsort(-x.astype("float64") if descending else x.astype("float64"))
    ctx.check_equal(out, expected)


@case("bool-stable-sweep")
def argsort_bool(ctx):
    import torch

    if not ctx.version_at_least("1.13"):
        ctx.skip(f"torch.argsort has no stable= argument before 1.13 (this is {ctx.version})")
    x = ctx.rng.random(97) > 0.5
    out = ctx.measure(torch.argsort, ctx.put(x), stable=True)
    ctx.check_equal(out, np.argsort(x, kind="stable"))


@sweep("{form}-sweep", form=["dim0-3d", "non-contiguous", "empty", "scalar", "complex-refused"])
def argsort_forms(ctx, form):
    import torch

    if form == "complex-refused":
        z = ctx.put(np.array([1 + 1j, 2 - 1j], dtype="complex64"))

        def attempt():
            try:
                torch.argsort(z)
            except (RuntimeError, TypeError):
                return True
            return False

        ctx.check(ctx.measure(attempt), "argsort ordered complex numbers", category="type")
        return
    shape = {"dim0-3d": (7, 3, 5), "non-contiguous": (9, 11), "empty": (0, 4), "scalar": ()}[form]
    x = ctx.rng.permutation(max(int(np.prod(shape)), 1))[: int(np.prod(shape))]
    x = x.reshape(shape).astype("float32")
    t = ctx.put(x)
    if form == "non-contiguous":
        t, x = t.t(), x.T
        ctx.check(not t.is_contiguous(), "the input is a non-contiguous view", "other")
    out = ctx.measure(torch.argsort, t, dim=0)
    ctx.check_equal(out, np.argsort(x, axis=0) if x.ndim else np.array(0))


# The study's kinds of paths (issue #33): the refusals (a dim out of range; complex, which
# has no order), vmap over a batch, and the full grid of order x stability x dim on input
# with ties (stable=True keeps tied elements in input order, as NumPy's stable sort).
@sweep("raises-{arg}", arg=["dim-out-of-range", "complex"])
def argsort_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    if arg == "dim-out-of-range":
        x = ctx.put(np.zeros((3, 4), dtype="float32"))
        refusal(ctx, lambda: torch.argsort(x, dim=2), IndexError, "Dimension out of range")
    else:
        z = ctx.put(np.array([1 + 1j, 2 - 1j], dtype="complex64"))
        refusal(ctx, lambda: torch.argsort(z), RuntimeError, "complex")


@sweep("vmap-{dtype}", dtype=["float32", "int64"])
def argsort_vmap(ctx, dtype):
    import torch
    from _torchhelp import vmap

    x = np.stack([ctx.rng.permutation(40) for _ in range(5)]).astype(dtype)
    out = ctx.measure(vmap(ctx)(lambda t: torch.argsort(t, descending=True)), ctx.put(x))
    ctx.check_equal(out, np.argsort(-x.astype("float64"), axis=1))


@sweep(
    "flags-{order}-{stability}-{dim}",
    order=["ascending", "descending"],
    stability=["stable", "default"],
    dim=["dim0", "dim-last"],
)
def argsort_grid(ctx, order, stability, dim):
    import torch

    stable = stability == "stable"
    if stable and not ctx.version_at_least("1.13"):
        ctx.skip(f"torch.argsort has no stable= argument before 1.13 (this is {ctx.version})")
    x = ctx.rng.integers(0, 5, size=(9, 7)).astype("float32")  # many ties
    axis = 0 if dim == "dim0" else -1
    descending = order == "descending"
    kwargs = {"stable": True} if stable else {}
    out = ctx.measure(torch.argsort, ctx.put(x), dim=axis, descending=descending, **kwargs)
    idx = np.asarray(ctx.to_numpy(out))
    key = -x if descending else x
    if stable:
        ctx.check_equal(idx, np.argsort(key, axis=axis, kind="stable"))
        return
    # Without stable= the order among ties is free: the indices must still sort the input
    # and be a permutation along the dim.
    ctx.check_equal(np.sort(idx, axis=axis), np.sort(np.argsort(key, axis=axis), axis=axis))
    ctx.check_equal(np.take_along_axis(key, idx, axis=axis), np.sort(key, axis=axis))
