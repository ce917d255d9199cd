"""tensorflow.python.util.nest.map_structure_up_to: map only down to a shallow structure."""

import numpy as np
from tfhelp import ALL_DTYPES, MODES, by_mode, raises

from portbench_runner.api import case, sweep

NAME = "tensorflow.python.util.nest.map_structure_up_to"


@case("shallow-keeps-subtrees")
def shallow(ctx):
    up_to = ctx.require(NAME)
    shallow_tree = {"a": None, "b": None}
    tree = {"a": [1, 2, 3], "b": (4, 5)}
    out = ctx.measure(up_to, shallow_tree, len, tree)
    ctx.check(out == {"a": 3, "b": 2}, f"lengths of the subtrees are {out}", "other")


@case("tensors-two-inputs")
def tensors(ctx):
    import tensorflow as tf

    up_to = ctx.require(NAME)
    x = [ctx.put(np.ones((2, 2), dtype="float32")), ctx.put(np.full(3, 2.0, dtype="float32"))]
    y = [ctx.put(np.full((2, 2), 3.0, dtype="float32")), ctx.put(np.ones(3, dtype="float32"))]
    out = ctx.measure(up_to, [None, None], tf.add, x, y)
    ctx.check_equal(out[0], np.full((2, 2), 4.0, dtype="float32"))
    ctx.check_equal(out[1], np.full(3, 3.0, dtype="float32"))


@case("shallow-tuple-of-lists")
def nested(ctx):
    up_to = ctx.require(NAME)
    shallow_tree = ([None, None], None)
    tree = ([[1, 2], [3]], [4, 5, 6])
    out = ctx.measure(up_to, shallow_tree, sum, tree)
    ctx.check(out == ([3, 3], 15), f"sums are {out}", "other")


@case("deeper-shallow-raises")
def mismatch(ctx):
    up_to = ctx.require(NAME)
    out = ctx.measure(
        raises(lambda: up_to([None, [None]], lambda v: v, [1, 2]), ValueError, TypeError)
    )
    ctx.check(out is not None, "a shallow tree deeper than the input mapped without error", "other")


# Tensors of every dtype, mapped down to a shallow structure (each subtree a list the function
# concatenates), eagerly, inside a tf.function and under XLA; new names, so the cases above
# keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=ALL_DTYPES, mode=MODES)
def dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import draw, placed

    up_to = ctx.require(NAME)
    x, ex = placed(ctx, draw(ctx, (4,), dtype, -9, 9), dtype)
    y, ey = placed(ctx, draw(ctx, (3,), dtype, -9, 9), dtype)

    def fn(a, b):
        tree = {"first": [a, b], "second": (b, [a])}
        shallow = {"first": None, "second": (None, None)}
        return up_to(shallow, lambda sub: tf.concat(tf.nest.flatten(sub), 0), tree)

    out = ctx.measure(by_mode(ctx, fn, mode), x, y)
    ctx.check(isinstance(out["second"], tuple), f"second is {type(out['second'])}", "other")
    ctx.check_equal(out["first"], np.concatenate([ex, ey]))
    ctx.check_equal(out["second"][0], ey)
    ctx.check_equal(out["second"][1], ex)


# Two inputs mapped pairwise up to the shallow tree, and the gradient through it, per mode.
@sweep("{form}-{mode}-sweep", form=["two-inputs", "gradient"], mode=MODES)
def forms(ctx, form, mode):
    import tensorflow as tf

    up_to = ctx.require(NAME)
    a_np = np.array([0.5, -1.0, 2.0], dtype="float32")
    a = ctx.put(a_np)

    def fn(t):
        if form == "two-inputs":
            left, right = [[t, t * 2.0], t], [[t * 3.0, t], t]
            return up_to([None, None], lambda p, q: tf.add_n(tf.nest.flatten([p, q])), left, right)
        with tf.GradientTape() as tape:
            tape.watch(t)
            left, right = [[t, t * 2.0], t], [[t * 3.0, t], t]  # built on the tape
            sums = up_to(
                [None, None],
                lambda p, q: tf.reduce_sum(tf.add_n(tf.nest.flatten([p, q])) ** 2),
                left,
                right,
            )
            y = sums[0] + sums[1]
        return tape.gradient(y, t)

    out = ctx.measure(by_mode(ctx, fn, mode), a)
    if form == "two-inputs":
        ctx.check_close(out[0], (7 * a_np).astype("float64"), dtype="float32")
        ctx.check_close(out[1], (2 * a_np).astype("float64"), dtype="float32")
    else:
        # (7t)^2 + (2t)^2 -> 98 t + 8 t
        ctx.check_close(out, (106 * a_np).astype("float64"), dtype="float32")


# The study's other kind of path here: the documented errors for an input that does not
# follow the shallow structure (a leaf where it has a sequence, another sequence type,
# another length: exact type and message). New names; the cases above keep their ids.
@sweep("error-{form}", form=["leaf-for-sequence", "sequence-type", "sequence-length"])
def up_to_errors(ctx, form):
    from tensorflow.python.util import nest
    from tfhelp import check_raises

    shallow, given, exc, pattern = {
        "leaf-for-sequence": (
            ((1, 2), 3),
            (1, 3),
            TypeError,
            r"If shallow structure is a sequence, input must also be a sequence",
        ),
        "sequence-type": (
            (1, 2),
            [1, 2],
            TypeError,
            r"The two structures don't have the same sequence type",
        ),
        "sequence-length": (
            (1, 2),
            (1, 2, 3),
            ValueError,
            r"The two structures don't have the same sequence length",
        ),
    }[form]
    check_raises(ctx, lambda: nest.map_structure_up_to(shallow, lambda a: a, given), exc, pattern)
