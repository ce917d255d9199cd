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


# The study's other kinds of paths: the documented errors for trees of different structure
# (a tuple of another length, a dict with other keys, a tuple against a list: exact type;
# the message was reworded between 0.4.13 and 0.10.2, so the pattern names both releases'
# words), the full grid of is_leaf (absent, a predicate) x None in the tree, and tree_map
# under jax.vmap (over a dict's leaves), eager and under jax.jit. New names; the cases above
# keep their ids.
@sweep("error-{form}", form=["tuple-length", "dict-keys", "tuple-vs-list"])
def tree_map_errors(ctx, form):
    from _jaxhelp import check_raises
    from jax.tree_util import tree_map

    a, b = {
        "tuple-length": ((1, 2), (1, 2, 3)),
        "dict-keys": ({"a": 1}, {"b": 1}),
        "tuple-vs-list": ((1, 2), [1, 2]),
    }[form]
    pattern = {
        # 0.4.13: "Tuple arity mismatch", "Dict key mismatch", "Expected tuple";
        # 0.10.2: "pytree structure error: different lengths / pytree metadata / types".
        "tuple-length": r"Tuple arity mismatch|different lengths of tuple",
        "dict-keys": r"Dict key mismatch|different pytree metadata",
        "tuple-vs-list": r"Expected tuple, got \[1, 2\]|different types",
    }[form]
    check_raises(ctx, lambda: tree_map(lambda u, v: u, a, b), ValueError, pattern)


@sweep(
    "flags-{leaf}-{nones}-sweep", leaf=["default-leaves", "is-leaf"], nones=["with-none", "no-none"]
)
def tree_map_flags(ctx, leaf, nones):
    from jax.tree_util import tree_map

    tree = {
        "pair": (ctx.put(np.arange(3.0)), ctx.put(np.ones(2))),
        "single": ctx.put(np.float64(4.0)),
    }
    if nones == "with-none":
        tree["missing"] = None
    kw = {"is_leaf": lambda t: isinstance(t, tuple)} if leaf == "is-leaf" else {}

    def f(t):
        return ("pair", len(t)) if isinstance(t, tuple) else t * 2

    out = ctx.measure(tree_map, f, tree, **kw)
    if leaf == "is-leaf":
        ctx.check(out["pair"] == ("pair", 2), f"the tuple was not a leaf: {out['pair']!r}", "other")
    else:
        ctx.check_equal(out["pair"][0], [0.0, 2.0, 4.0])
        ctx.check_equal(out["pair"][1], [2.0, 2.0])
    ctx.check_equal(out["single"], 8.0)
    ctx.check(
        ("missing" in out and out["missing"] is None) == (nones == "with-none"),
        f"None leaf: {out.get('missing', 'absent')!r}",
        "other",
    )


@sweep("vmap-{mode}-sweep", mode=MODES)
def tree_map_vmap(ctx, mode):
    import jax
    import jax.numpy as jnp
    from jax.tree_util import tree_map

    tree = {"a": ctx.rng.uniform(-2, 2, (5, 3)), "b": [ctx.rng.uniform(-2, 2, (5,))]}
    f = jax.vmap(lambda t: tree_map(lambda v: jnp.sum(v**2), t), in_axes=({"a": 0, "b": [0]},))
    out = ctx.measure(ctx.in_mode(mode, f), tree_map(ctx.put, tree))
    ctx.check_close(out["a"], (tree["a"] ** 2).sum(axis=1), dtype="float64")
    ctx.check_close(out["b"][0], tree["b"][0] ** 2, dtype="float64")
