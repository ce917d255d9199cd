"""tf.convert_to_tensor: lists, NumPy, scalars, dtype and dtype_hint, tensors pass through, errors."""

import numpy as np
from tfhelp import EVERY_DTYPE, MODES, by_mode, raises

from portbench_runner.api import case, sweep


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


# Every dtype a NumPy array carries into a tensor unchanged (bfloat16 is asked for with
# dtype=, from float32 values), eager, inside a tf.function and under XLA; new names, so
# the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def convert_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype, draw_any

    x = draw_any(ctx, (4, 5), dtype)
    kwargs = {"dtype": tf.bfloat16} if dtype == "bfloat16" else {}
    if mode == "eager":
        out = ctx.measure(tf.convert_to_tensor, x, **kwargs)
    else:
        out = ctx.measure(by_mode(ctx, lambda: tf.convert_to_tensor(x, **kwargs), mode))
    check_dtype(ctx, out, dtype)
    got = ctx.to_numpy(out)
    ctx.check_equal(got, x.astype(got.dtype))


# dtype_hint applies to Python ints for every numeric dtype they fit (the hint is a
# preference: what cannot convert falls back to the default instead of raising).
@sweep(
    "int-list-hint-{dtype}-sweep",
    dtype=[
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "int8",
        "int16",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
    ],
)
def convert_hint(ctx, dtype):
    import tensorflow as tf
    from tfhelp import check_dtype

    out = ctx.measure(tf.convert_to_tensor, [0, 3, 7], dtype_hint=getattr(tf, dtype))
    check_dtype(ctx, out, dtype)
    got = ctx.to_numpy(out)
    ctx.check_equal(got, np.array([0, 3, 7]).astype(got.dtype))


@case("tensor-other-dtype-raises")
def convert_tensor_mismatch(ctx):
    import tensorflow as tf

    t = ctx.put(np.arange(3, dtype="int32"))
    out = ctx.measure(
        raises(lambda: tf.convert_to_tensor(t, dtype=tf.int64), ValueError, TypeError)
    )
    ctx.check(out is not None, "an int32 tensor converted to int64 silently", "type")


# The study's other kind of path here: the documented errors for values it cannot convert
# (a lossy dtype, a tensor of another dtype, an arbitrary object: exact type and message).
# New names; the cases above keep their ids.
@sweep("error-{form}", form=["lossy-dtype", "tensor-other-dtype", "object"])
def convert_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    t = ctx.put(np.ones(2, dtype="int32"))
    call, exc, pattern = {
        "lossy-dtype": (
            lambda: tf.convert_to_tensor([1.5, 2.5], dtype=tf.int32),
            TypeError,
            r"Cannot convert \[1\.5, 2\.5\] to EagerTensor of dtype int32",
        ),
        "tensor-other-dtype": (
            lambda: tf.convert_to_tensor(t, dtype=tf.int64),
            ValueError,
            r"Tensor conversion requested dtype int64 for Tensor with dtype int32",
        ),
        "object": (
            lambda: tf.convert_to_tensor(object()),
            ValueError,
            r"Attempt to convert a value .* with an unsupported type",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)
