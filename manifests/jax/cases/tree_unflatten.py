"""jax.tree_util.tree_unflatten: rebuilds containers from a treedef and leaves, round trips."""

import collections

import numpy as np

from portbench_runner.api import case

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
