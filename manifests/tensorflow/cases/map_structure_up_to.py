"""tensorflow.python.util.nest.map_structure_up_to: map only down to a shallow structure."""

import numpy as np
from tfhelp import raises

from portbench_runner.api import case

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
