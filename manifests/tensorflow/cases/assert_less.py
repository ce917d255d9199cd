"""tf.debugging.assert_less: holds silently, raises on violation, dtypes, broadcasting, graph mode."""

import numpy as np
from tfhelp import raises

from portbench_runner.api import case


@case("float32-holds", dtype="float32")
@case("float64-holds", dtype="float64")
@case("int32-holds", dtype="int32")
@case("large-holds", dtype="float32", n=1_000_000)
def holds(ctx, dtype, n=256):
    import tensorflow as tf

    x = ctx.rng.integers(-100, 100, size=n).astype(dtype)
    y = x + 1
    out = ctx.measure(tf.debugging.assert_less, ctx.put(x), ctx.put(y))
    ctx.check(out is None, f"eager assert_less returned {out!r}, documented None", "other")


@case("violation-raises")
def violation(ctx):
    import tensorflow as tf

    x, y = ctx.put(np.array([1.0, 5.0, 2.0])), ctx.put(np.array([2.0, 5.0, 3.0]))
    out = ctx.measure(
        raises(
            lambda: tf.debugging.assert_less(x, y, message="bad"), tf.errors.InvalidArgumentError
        )
    )
    ctx.check(out == "InvalidArgumentError", f"5 < 5 raised {out}", "other")


@case("broadcast-scalar-bound")
def broadcast(ctx):
    import tensorflow as tf

    x = ctx.put(ctx.rng.uniform(0.0, 1.0, size=(16, 16)).astype("float32"))
    out = ctx.measure(
        raises(lambda: tf.debugging.assert_less(x, 1.0), tf.errors.InvalidArgumentError)
    )
    ctx.check(out is None, f"values < 1 against the scalar 1 raised {out}", "other")


@case("empty-holds")
def empty(ctx):
    import tensorflow as tf

    e = ctx.put(np.zeros((0,), dtype="float32"))
    out = ctx.measure(
        raises(lambda: tf.debugging.assert_less(e, e), tf.errors.InvalidArgumentError)
    )
    ctx.check(out is None, f"empty tensors (vacuously true) raised {out}", "other")


@case("graph-holds-and-gates")
@case("graph-violation-raises", bad=True)
def graph(ctx, bad=False):
    import tensorflow as tf

    @tf.function
    def checked(a, b):
        with tf.control_dependencies([tf.debugging.assert_less(a, b)]):
            return b - a

    x = ctx.put(np.array([1, 2, 3], dtype="int32"))
    y = ctx.put(np.array([2, 2 if bad else 4, 9], dtype="int32"))
    if bad:
        out = ctx.measure(raises(lambda: checked(x, y), tf.errors.InvalidArgumentError))
        ctx.check(out == "InvalidArgumentError", f"2 < 2 inside tf.function raised {out}", "other")
    else:
        out = ctx.measure(checked, x, y)
        ctx.check_equal(out, np.array([1, 2, 6], dtype="int32"))
