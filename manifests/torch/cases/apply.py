"""torch.Tensor.apply_: applies a Python function to each element in place (CPU tensors only,
as documented: on other devices it is expected to raise)."""

import numpy as np
from _torchhelp import ALL_INTS, BOOL, COMPLEXES, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


@case("float32-square", dtype="float32")
@case("float64-affine", dtype="float64", fn="affine")
@case("int64-increment", dtype="int64", fn="increment")
def apply_values(ctx, dtype, fn="square"):
    funcs = {"square": lambda v: v * v, "affine": lambda v: 2 * v + 1, "increment": lambda v: v + 1}
    x = (ctx.rng.standard_normal(256) * 10).astype(dtype)
    tensor = ctx.put(x)
    out = ctx.measure(tensor.apply_, funcs[fn], warm=False)
    ctx.check(out is tensor, "apply_ did not return its own tensor")
    ctx.check_close(
        out,
        np.vectorize(funcs[fn])(x).astype("float64"),
        dtype=dtype if dtype != "int64" else None,
        rtol=1e-6,
        atol=1e-6,
    )


@case("large-in-place")
def apply_large(ctx):
    x = ctx.put(np.ones(100_000, dtype="float32"))
    ctx.measure(x.apply_, lambda v: v + 2, warm=False)
    ctx.check_equal(ctx.to_numpy(x)[:3], [3.0, 3.0, 3.0])


# Every dtype apply_ takes (the callable sees Python numbers: int, float, complex or bool);
# the function keeps the tensor's dtype, so results wrap or round like it.
@sweep("{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS + COMPLEXES + ALL_INTS + BOOL)
def apply_dtypes(ctx, dtype):
    from _torchhelp import close_or_equal, draw, placed

    if ctx.flavor != "cpu":
        ctx.skip("Tensor.apply_ works only on CPU tensors (documented)")
    x, x_h = placed(ctx, draw(ctx, (96,), dtype, 0, 9), dtype)
    fn = (lambda v: not v) if dtype == "bool" else (lambda v: v * 3 + 1)
    # Before the call: on the CPU the host copy of an integer tensor can share its memory.
    expected = np.logical_not(x_h) if dtype == "bool" else x_h * 3 + 1
    out = ctx.measure(x.apply_, fn, warm=False)
    ctx.check(out is x and out.dtype == x.dtype, "apply_ did not return its own tensor")
    close_or_equal(ctx, out, expected, dtype)


@sweep("{form}-sweep", form=["non-contiguous", "empty", "scalar", "raises-propagates"])
def apply_forms(ctx, form):
    if ctx.flavor != "cpu":
        ctx.skip("Tensor.apply_ works only on CPU tensors (documented)")
    base_np = np.arange(20, dtype="float32").reshape(4, 5)
    base = ctx.put(base_np)
    if form == "non-contiguous":
        # Every element of a strided view, and only those, is visited in place.
        view = base[:, ::2]
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        ctx.measure(view.apply_, lambda v: -v, warm=False)
        expected = base_np.copy()
        expected[:, ::2] *= -1
        ctx.check_equal(base, expected)
    elif form in ("empty", "scalar"):
        x_np = np.zeros((0, 3), "float32") if form == "empty" else np.array(2.5, "float32")
        x = ctx.put(x_np)
        ctx.check_equal(ctx.measure(x.apply_, lambda v: v + 1, warm=False), x_np + 1)
    else:

        def attempt():
            try:
                base.apply_(lambda v: 1 / 0)
            except ZeroDivisionError:
                return True
            return False

        ctx.check(ctx.measure(attempt, warm=False), "the callable's error was swallowed", "other")


# The study's kinds of paths (issue #33): the refusals (a callable that is not one, a
# callable returning what the dtype cannot hold; off the CPU the documented TypeError), and
# indexing forms: apply_ on a row, a column and a strided slice changes only those elements.
@sweep("raises-{arg}", arg=["not-callable", "returns-str", "off-cpu"])
def apply_refusals(ctx, arg):
    from _torchhelp import refusal

    x = ctx.put(np.zeros(4, dtype="float32"))
    if arg == "off-cpu":
        if ctx.flavor == "cpu":
            ctx.skip("on the CPU apply_ works: the documented refusal is for other devices")
        refusal(ctx, lambda: x.apply_(lambda v: v), TypeError, "only implemented on CPU")
        return
    if ctx.flavor != "cpu":
        ctx.skip("Tensor.apply_ works only on CPU tensors (documented)")
    fn, fragment = {
        "not-callable": (3, "not callable"),
        "returns-str": (lambda v: "a", "must be real number"),
    }[arg]
    refusal(ctx, lambda: x.apply_(fn), TypeError, fragment)


@sweep("index-{form}", form=["row", "column", "slice-step", "negative-row"])
def apply_indexing(ctx, form):
    if ctx.flavor != "cpu":
        ctx.skip("Tensor.apply_ works only on CPU tensors (documented)")
    base_np = np.arange(24, dtype="float64").reshape(4, 6)
    base = ctx.put(base_np)
    where = {
        "row": (1, slice(None)),
        "column": (slice(None), 2),
        "slice-step": (slice(None), slice(1, None, 2)),
        "negative-row": (-1, slice(None)),
    }[form]
    ctx.measure(base[where].apply_, lambda v: v * 10 + 1, warm=False)
    expected = base_np.copy()
    expected[where] = expected[where] * 10 + 1
    ctx.check_equal(base, expected)
