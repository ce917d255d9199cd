"""tf.nest.map_structure: nested containers of tensors, several structures, namedtuples, mismatches."""

import collections

import numpy as np
from tfhelp import ALL_DTYPES, MODES, by_mode, raises

from portbench_runner.api import case, sweep

Pair = collections.namedtuple("Pair", ["left", "right"])


@case("nested-dict-list")
def nested(ctx):
    import tensorflow as tf

    a = np.arange(4, dtype="float32")
    tree = {"x": [ctx.put(a), ctx.put(a * 2)], "y": (ctx.put(a * 3),)}
    out = ctx.measure(tf.nest.map_structure, lambda t: t + 1.0, tree)
    ctx.check(
        isinstance(out, dict) and isinstance(out["x"], list) and isinstance(out["y"], tuple),
        f"structure {type(out)}",
        "other",
    )
    ctx.check_equal(out["x"][1], a * 2 + 1)
    ctx.check_equal(out["y"][0], a * 3 + 1)


@case("two-structures")
def two(ctx):
    import tensorflow as tf

    a = [ctx.put(np.ones(3, dtype="float32")), {"k": ctx.put(np.full(2, 5.0, dtype="float32"))}]
    b = [ctx.put(np.full(3, 2.0, dtype="float32")), {"k": ctx.put(np.ones(2, dtype="float32"))}]
    out = ctx.measure(tf.nest.map_structure, tf.multiply, a, b)
    ctx.check_equal(out[0], np.full(3, 2.0, dtype="float32"))
    ctx.check_equal(out[1]["k"], np.full(2, 5.0, dtype="float32"))


@case("namedtuple-kept")
def named(ctx):
    import tensorflow as tf

    p = Pair(ctx.put(np.array([1.0])), ctx.put(np.array([2.0])))
    out = ctx.measure(tf.nest.map_structure, tf.negative, p)
    ctx.check(type(out) is Pair, f"namedtuple became {type(out).__name__}", "other")
    ctx.check_equal(out.right, np.array([-2.0]))


@case("mismatch-raises")
def mismatch(ctx):
    import tensorflow as tf

    out = ctx.measure(
        raises(
            lambda: tf.nest.map_structure(lambda a, b: a, [1, 2], [1, [2]]), ValueError, TypeError
        )
    )
    ctx.check(out is not None, "structures [1, 2] and [1, [2]] mapped without error", "other")


@case("many-leaves")
def many(ctx):
    import tensorflow as tf

    tree = {f"k{i}": [i, (i + 1, i + 2)] for i in range(2000)}
    out = ctx.measure(tf.nest.map_structure, lambda v: v * 2, tree)
    ctx.check(out["k1999"] == [3998, (4000, 4002)], f"leaf k1999 is {out['k1999']}", "other")


# Leaves of every dtype mapped by a TF op, eagerly, inside a tf.function and under XLA (the
# structure is rebuilt at trace time: the compiled function returns the same nesting).
# New names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=ALL_DTYPES, mode=MODES)
def leaf_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import draw, placed

    x, ex = placed(ctx, draw(ctx, (3, 4), dtype, -9, 9), dtype)
    y, ey = placed(ctx, draw(ctx, (5,), dtype, -9, 9), dtype)

    def fn(a, b):
        tree = {"m": [a, (b,)], "p": Pair(a[0], b)}
        return tf.nest.map_structure(lambda t: tf.reverse(t, [0]), tree)

    out = ctx.measure(by_mode(ctx, fn, mode), x, y)
    ctx.check(
        isinstance(out["m"], list) and isinstance(out["m"][1], tuple) and type(out["p"]) is Pair,
        f"structure came back as {out!r}"[:200],
        "other",
    )
    ctx.check_equal(out["m"][0], ex[::-1])
    ctx.check_equal(out["m"][1][0], ey[::-1])
    ctx.check_equal(out["p"].left, ex[0][::-1])


# Options and leaves: check_types=False (a list against a tuple), expand_composites on a
# SparseTensor (its values, indices and dense shape are all leaves: only the float
# values are scaled), a RaggedTensor leaf, None leaves, and
# the gradient through a mapped structure, in each mode.
@sweep(
    "{form}-{mode}-sweep",
    form=["no-check-types", "expand-composites", "ragged-leaf", "none-leaves", "gradient"],
    mode=MODES,
)
def forms(ctx, form, mode):
    import tensorflow as tf

    a_np = np.array([1.0, -2.0, 3.0], dtype="float32")
    a = ctx.put(a_np)

    def fn(t):
        if form == "no-check-types":
            return tf.nest.map_structure(tf.add, [t, t * 2], (t, t), check_types=False)
        if form == "expand-composites":
            sp = tf.sparse.from_dense(tf.reshape(t, (1, 3)))
            out = tf.nest.map_structure(
                lambda v: v * 2 if v.dtype.is_floating else v, sp, expand_composites=True
            )
            return tf.sparse.to_dense(out)
        if form == "ragged-leaf":
            rt = tf.RaggedTensor.from_row_lengths(t, [2, 1])
            return tf.nest.map_structure(lambda r: r.flat_values + 1.0, [rt])[0]
        if form == "none-leaves":
            out = tf.nest.map_structure(lambda v: v, {"x": None, "y": t})
            return out["y"] if out["x"] is None else out["x"]
        with tf.GradientTape() as tape:
            tape.watch(t)
            parts = tf.nest.map_structure(lambda v: v * v, {"p": t, "q": [t * 3.0]})
            y = tf.add_n([tf.reduce_sum(v) for v in tf.nest.flatten(parts)])
        return tape.gradient(y, t)

    out = ctx.measure(by_mode(ctx, fn, mode), a)
    if form == "no-check-types":
        ctx.check(
            isinstance(out, list), f"{type(out).__name__}, not the first input's list", "other"
        )
        ctx.check_equal(out[1], a_np * 3)
        return
    expected = {
        "expand-composites": (a_np * 2).reshape(1, 3),
        "ragged-leaf": a_np + 1.0,
        "none-leaves": a_np,
        "gradient": 2 * a_np + 18 * a_np,
    }[form]
    ctx.check_close(out, expected.astype("float64"), dtype="float32")


# The study's other kinds of paths: the documented errors for bad calls (structures of
# different lengths, a tuple against a list, an unknown keyword, no structure: exact type and
# message), and the full grid of check_types (a tuple and a list mapped together only when
# off) x expand_composites (a SparseTensor mapped whole, or its components). New names; the
# cases above keep their ids.
@sweep("error-{form}", form=["lengths-differ", "tuple-vs-list", "unknown-keyword", "no-structure"])
def map_structure_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    call, exc, pattern = {
        "lengths-differ": (
            lambda: tf.nest.map_structure(lambda a, b: a, (1, 2), (1, 2, 3)),
            ValueError,
            r"don't have the same nested structure",
        ),
        "tuple-vs-list": (
            lambda: tf.nest.map_structure(lambda a, b: a, (1, 2), [1, 2]),
            TypeError,
            r"don't have the same nested structure",
        ),
        "unknown-keyword": (
            lambda: tf.nest.map_structure(lambda a: a, (1,), bad=1),
            ValueError,
            r"Only valid keyword arguments are `check_types` and `expand_composites`",
        ),
        "no-structure": (
            lambda: tf.nest.map_structure(lambda: 1),
            ValueError,
            r"Must provide at least one structure",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)


@sweep(
    "flags-{check}-{expand}-sweep",
    check=["check-types", "no-check"],
    expand=["expand-composites", "whole-composites"],
)
def map_structure_flags(ctx, check, expand):
    import tensorflow as tf

    sparse = tf.sparse.from_dense(tf.constant([[1.0, 0.0], [0.0, 2.0]]))
    kw = {"check_types": check == "check-types", "expand_composites": expand == "expand-composites"}

    def run():
        pairs = (
            tf.nest.map_structure(lambda a, b: a + b, (1, 2), [3, 4], check_types=kw["check_types"])
            if not kw["check_types"]
            else None
        )
        mapped = tf.nest.map_structure(
            lambda t: t * 2 if t.dtype == tf.float32 else t,
            sparse,
            expand_composites=kw["expand_composites"],
        )
        return pairs, mapped

    if kw["check_types"]:
        try:
            tf.nest.map_structure(lambda a, b: a + b, (1, 2), [3, 4])
            ctx.check(False, "a tuple and a list mapped together with check_types=True", "other")
        except TypeError:
            pass
    pairs, mapped = ctx.measure(run)
    if not kw["check_types"]:
        ctx.check(pairs == (4, 6), f"tuple and list mapped to {pairs!r}", "other")
    if kw["expand_composites"]:
        # Each component of the SparseTensor (indices, values, dense shape) is a leaf: the
        # float values are doubled, the int64 indices and shape kept.
        ctx.check(
            isinstance(mapped, tf.SparseTensor),
            f"expanded map gave {type(mapped).__name__}",
            "other",
        )
        ctx.check_equal(mapped.values, np.array([2.0, 4.0], dtype="float32"))
    else:
        ctx.check(
            isinstance(mapped, tf.SparseTensor), f"whole map gave {type(mapped).__name__}", "other"
        )
        ctx.check_equal(
            tf.sparse.to_dense(mapped), np.array([[2.0, 0.0], [0.0, 4.0]], dtype="float32")
        )
