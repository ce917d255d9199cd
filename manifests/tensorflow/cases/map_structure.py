"""tf.nest.map_structure: nested containers of tensors, several structures, namedtuples, mismatches."""

import collections

import numpy as np
from tfhelp import raises

from portbench_runner.api import case

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
