"""jax.tree_util.tree_map: maps over leaves of nested containers, several trees, is_leaf, None."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

from portbench_runner.api import case, sweep


@case("nested-arrays")
def tree_map_arrays(ctx):
    import jax

    tree = {
        "w": ctx.put(np.ones((3, 2), dtype="float32")),
        "b": [ctx.put(np.arange(3, dtype="float32")), (ctx.put(np.float32(2.0)),)],
    }
    out = ctx.measure(jax.tree_util.tree_map, lambda x: x * 2 + 1, tree)
    ctx.check_equal(out["w"], np.full((3, 2), 3.0))
    ctx.check_equal(out["b"][0], [1.0, 3.0, 5.0])
    ctx.check_equal(out["b"][1][0], 5.0)


@case("two-trees")
def tree_map_two(ctx):
    import jax

    a = {"x": ctx.put(np.arange(4.0)), "y": ctx.put(np.ones(2))}
    b = {"x": ctx.put(np.full(4, 10.0)), "y": ctx.put(np.full(2, 5.0))}
    out = ctx.measure(jax.tree_util.tree_map, lambda u, v: u + v, a, b)
    ctx.check_equal(out["x"], [10.0, 11.0, 12.0, 13.0])
    ctx.check_equal(out["y"], [6.0, 6.0])


@case("is-leaf-and-none")
def tree_map_is_leaf(ctx):
    import jax

    tree = {"pair": (1, 2), "skip": None, "n": 3}
    out = ctx.measure(
        jax.tree_util.tree_map,
        lambda x: len(x) if isinstance(x, tuple) else x * 10,
        tree,
        is_leaf=lambda x: isinstance(x, tuple),
    )
    ctx.check(out == {"pair": 2, "skip": None, "n": 30}, f"tree_map gave {out}")


@case("many-leaves")
def tree_map_many(ctx):
    import jax

    tree = [{"a": i, "b": [i, i + 1]} for i in range(10_000)]
    out = ctx.measure(jax.tree_util.tree_map, lambda x: x + 1, tree)
    ctx.check(out[9_999] == {"a": 10_000, "b": [10_000, 10_001]}, "wrong last element")


# tree_map over nested containers whose leaves are arrays of every dtype, eager and inside
# jax.jit (the tree is the jitted function's argument); the mapped function reverses each
# leaf, which is exact and keeps the dtype; new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def tree_map_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import draw, out_dtype, placed

    leaves = [placed(ctx, draw(ctx, shape, dtype, 0, 9), dtype) for shape in ((4,), (2, 3), ())]
    tree = {"a": leaves[0][0], "b": [leaves[1][0], (leaves[2][0],)]}
    fn = ctx.in_mode(mode, lambda t: jax.tree_util.tree_map(lambda x: x[::-1] if x.ndim else x, t))
    out = ctx.measure(fn, tree)
    for got, (_, exact) in zip((out["a"], out["b"][0], out["b"][1][0]), leaves):
        ctx.check(
            out_dtype(ctx, got) == dtype, f"a {dtype} leaf came back {out_dtype(ctx, got)}", "type"
        )
        ctx.check_equal(got, (exact[::-1] if exact.ndim else exact).astype(out_dtype(ctx, got)))
