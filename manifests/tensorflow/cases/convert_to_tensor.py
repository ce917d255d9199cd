"""tf.convert_to_tensor: lists, NumPy, scalars, dtype and dtype_hint, tensors pass through, errors."""

import numpy as np
from tfhelp import by_mode, raises

from portbench_runner.api import case


@case("list-float32", value=[[1.0, 2.0]], kw={}, expect="float32")
@case("numpy-float64", value="numpy", kw={}, expect="float64")
@case("python-int", value=3, kw={}, expect="int32")
@case("list-with-dtype-float64", value=[1, 2], kw={"dtype": "float64"}, expect="float64")
@case("int-with-dtype-hint-float32", value=[1, 2], kw={"dtype_hint": "float32"}, expect="float32")
@case("float-ignores-int-hint", value=[1.5], kw={"dtype_hint": "int32"}, expect="float32")
@case("bool-list", value=[True, False, True], kw={}, expect="bool")
@case("numpy-large", value="large", kw={}, expect="float32")
def convert_values(ctx, value, kw, expect):
    import tensorflow as tf

    if value == "numpy":
        value = ctx.rng.standard_normal((8, 8))
    elif value == "large":
        value = ctx.rng.standard_normal(1_000_000).astype("float32")
    kwargs = {k: getattr(tf, v) for k, v in kw.items()}
    out = ctx.measure(tf.convert_to_tensor, value, **kwargs)
    ctx.check(out.dtype.name == expect, f"dtype {out.dtype.name}, expected {expect}", "type")
    ctx.check_equal(out, np.asarray(value, dtype=expect))


@case("tensor-passes-through")
def convert_tensor(ctx):
    import tensorflow as tf

    t = ctx.put(np.arange(5, dtype="float32"))
    out = ctx.measure(tf.convert_to_tensor, t)
    ctx.check(out is t, "converting a tensor of the right dtype made a new object", "other")


@case("incompatible-dtype-raises")
def convert_bad_dtype(ctx):
    import tensorflow as tf

    out = ctx.measure(
        raises(lambda: tf.convert_to_tensor([1.5, 2.5], dtype=tf.int32), TypeError, ValueError)
    )
    ctx.check(out is not None, "converting [1.5, 2.5] to int32 raised nothing", "other")


@case("inside-graph", mode="graph")
@case("inside-xla", mode="xla")
def convert_compiled(ctx, mode):
    import tensorflow as tf

    fn = by_mode(ctx, lambda t: t * tf.convert_to_tensor([1.0, 2.0, 3.0]), mode)
    out = ctx.measure(fn, ctx.put(np.full(3, 2.0, dtype="float32")))
    ctx.check_equal(out, np.array([2.0, 4.0, 6.0], dtype="float32"))
