"""jax.tree_util.tree_unflatten: rebuilds containers from a treedef and leaves, round trips."""

import collections

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

from portbench_runner.api import case, sweep

Point = collections.namedtuple("Point", "x y")


@case("dict-list-round-trip")
def unflatten_round_trip(ctx):
    import jax

    tree = {"a": [1, 2, (3, 4)], "b": {"c": 5}}
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    out = ctx.measure(jax.tree_util.tree_unflatten, treedef, [v * 10 for v in leaves])
    ctx.check(out == {"a": [10, 20, (30, 40)], "b": {"c": 50}}, f"got {out}")


@case("namedtuple-arrays")
def unflatten_namedtuple(ctx):
    import jax

    tree = Point(ctx.put(np.zeros(2)), ctx.put(np.ones(3)))
    _, treedef = jax.tree_util.tree_flatten(tree)
    out = ctx.measure(
        jax.tree_util.tree_unflatten, treedef, [ctx.put(np.full(2, 7.0)), ctx.put(np.full(3, 8.0))]
    )
    ctx.check(isinstance(out, Point), f"got a {type(out).__name__}, not Point")
    ctx.check_equal(out.y, [8.0, 8.0, 8.0])


@case("wrong-leaf-count-is-refused")
def unflatten_wrong_count(ctx):
    import jax

    _, treedef = jax.tree_util.tree_flatten([1, 2, 3])

    def attempt():
        try:
            jax.tree_util.tree_unflatten(treedef, [1, 2])
        except ValueError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "unflatten accepted 2 leaves for a 3-leaf treedef")


# tree_unflatten rebuilding a namedtuple and dict around array leaves of every dtype, eager
# and inside jax.jit (the rebuilt tree is the jitted function's output); new names, so the
# cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def tree_unflatten_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import draw, out_dtype, placed

    _, treedef = jax.tree_util.tree_flatten(Point(0, {"k": [0, 0]}))
    leaves = [placed(ctx, draw(ctx, shape, dtype, 0, 9), dtype) for shape in ((3,), (2, 2), ())]
    fn = ctx.in_mode(mode, lambda ls: jax.tree_util.tree_unflatten(treedef, ls))
    out = ctx.measure(fn, [arr for arr, _ in leaves])
    ctx.check(isinstance(out, Point) and isinstance(out.y, dict), f"rebuilt {out!r}", "other")
    for got, (_, exact) in zip((out.x, out.y["k"][0], out.y["k"][1]), leaves):
        ctx.check(
            out_dtype(ctx, got) == dtype, f"a {dtype} leaf came back {out_dtype(ctx, got)}", "type"
        )
        ctx.check_equal(got, exact.astype(out_dtype(ctx, got)))


# The study's other kinds of paths: the documented errors for a wrong number of leaves (too
# few, too many: exact type and message), and tree_unflatten inside jax.vmap (rebuilding a
# structured output from batched leaves), eager and under jax.jit. New names; the cases
# above keep their ids.
@sweep("error-{form}", form=["too-few-leaves", "too-many-leaves"])
def tree_unflatten_errors(ctx, form):
    from _jaxhelp import check_raises
    from jax.tree_util import tree_structure, tree_unflatten

    treedef = tree_structure((1, {"a": 2}))
    leaves, pattern = (
        ([1], r"Too few leaves for PyTreeDef")
        if form == "too-few-leaves"
        else ([1, 2, 3], r"Too many leaves for PyTreeDef")
    )
    check_raises(ctx, lambda: tree_unflatten(treedef, leaves), ValueError, pattern)


@sweep("vmap-{mode}-sweep", mode=MODES)
def tree_unflatten_vmap(ctx, mode):
    import jax
    from jax.tree_util import tree_structure, tree_unflatten

    treedef = tree_structure({"sum": 0, "parts": (0, 0)})
    x = ctx.rng.uniform(-2, 2, (6, 2))

    def f(v):
        # Leaves in the treedef's order: dict keys sorted, so "parts" (two) before "sum".
        return tree_unflatten(treedef, [v[0], v[1], v[0] + v[1]])

    out = ctx.measure(ctx.in_mode(mode, jax.vmap(f)), ctx.put(x))
    ctx.check(
        set(out) == {"sum", "parts"} and len(out["parts"]) == 2,
        f"structure {jax.tree_util.tree_structure(out)}",
        "other",
    )
    ctx.check_close(out["sum"], x.sum(axis=1), dtype="float64")
    ctx.check_equal(out["parts"][1], x[:, 1])
