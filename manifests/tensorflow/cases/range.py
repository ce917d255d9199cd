"""tf.range: start/limit/delta, negative and fractional steps, dtypes, empty, large, graph/XLA."""

import numpy as np
from tfhelp import INDEX_INTS, MODES, REAL_FLOATS, by_mode

from portbench_runner.api import case, sweep


@case("int32-limit", args=(10,), dtype=None, np_dtype="int32")
@case("int32-start-limit-delta", args=(3, 50, 7), dtype=None, np_dtype="int32")
@case("int64-negative-delta", args=(20, -5, -3), dtype="int64", np_dtype="int64")
@case("float32-fractional", args=(0.0, 1.0, 0.125), dtype=None, np_dtype="float32")
@case("float64-dtype", args=(1, 4), dtype="float64", np_dtype="float64")
@case("int32-empty", args=(5, 5), dtype=None, np_dtype="int32")
@case("int32-large", args=(1_000_000,), dtype=None, np_dtype="int32")
def range_values(ctx, args, dtype, np_dtype):
    import tensorflow as tf

    kwargs = {"dtype": getattr(tf, dtype)} if dtype else {}
    out = ctx.measure(tf.range, *args, **kwargs)
    ctx.check(out.dtype.name == np_dtype, f"dtype {out.dtype.name}, expected {np_dtype}", "type")
    ctx.check_close(out, np.arange(*args, dtype=np_dtype), dtype=np_dtype)


@case("tensor-limit-graph", mode="graph")
@case("tensor-limit-xla", mode="xla")
def range_in_function(ctx, mode):
    import tensorflow as tf

    # Under XLA the output shape must be known when compiling: the limit is a constant there.
    fn = by_mode(ctx, lambda start: tf.range(start, 40, 3) * 2, mode)
    out = ctx.measure(fn, ctx.put(np.array(4, dtype="int32")))
    ctx.check_equal(out, np.arange(4, 40, 3) * 2)


# Every dtype tf.range makes (int32, int64 and the four real floats: it refuses the narrow
# and unsigned integers and complex in Python), eager, in a tf.function and under XLA; the
# start is a tensor of that dtype and `dtype=` names it (without it, a float16 or bfloat16
# start is promoted to float32 by the Python limit and delta, as documented). Float steps of
# 0.25 and integers below 256 are exact even in float16 and bfloat16; new names, so the
# cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=INDEX_INTS + REAL_FLOATS, mode=MODES)
def range_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype

    start, limit, delta = (-7, 40, 3) if dtype.startswith("int") else (0.5, 6.0, 0.25)
    fn = by_mode(ctx, lambda s: tf.range(s, limit, delta, dtype=getattr(tf, dtype)), mode)
    out = ctx.measure(fn, ctx.put(np.array(start), dtype=dtype))
    check_dtype(ctx, out, dtype)
    ctx.check_equal(out, np.arange(start, limit, delta))


# Negative steps and a start past the limit (empty), with the dtype keyword.
@sweep("{dtype}-negative-delta-sweep", dtype=INDEX_INTS + REAL_FLOATS)
@sweep("{dtype}-empty-sweep", dtype=INDEX_INTS + REAL_FLOATS, empty=True)
def range_forms(ctx, dtype, empty=False):
    import tensorflow as tf

    args = (5, 5, 1) if empty else (12, -4, -2)
    out = ctx.measure(tf.range, *args, dtype=getattr(tf, dtype))
    ctx.check_equal(out, np.arange(*args))


# The study's other kinds of paths: the documented errors for bad arguments (a zero delta, a
# delta pointing away from the limit, a string dtype: exact type and message), and the full
# grid of range's argument forms (limit only, start and limit, a negative delta, a float
# delta) x dtype (inferred, int64, float64). New names; the cases above keep their ids.
@sweep("error-{form}", form=["zero-delta", "delta-away-from-limit", "string-dtype"])
def range_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    call, exc, pattern = {
        "zero-delta": (
            lambda: tf.range(0, 10, 0),
            tf.errors.InvalidArgumentError,
            r"Requires delta != 0",
        ),
        "delta-away-from-limit": (
            lambda: tf.range(0, 10, -1),
            tf.errors.InvalidArgumentError,
            r"Requires start >= limit when delta < 0",
        ),
        "string-dtype": (
            lambda: tf.range(0, 10, 1, dtype=tf.string),
            TypeError,
            r"Cannot convert 0 to EagerTensor of dtype string",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)


@sweep(
    "flags-{form}-dtype-{dtype}-sweep",
    form=["limit-only", "start-limit", "negative-delta", "float-delta"],
    dtype=["inferred", "int64", "float64"],
)
def range_flags(ctx, form, dtype):
    import tensorflow as tf

    args = {
        "limit-only": (7,),
        "start-limit": (3, 11),
        "negative-delta": (9, -4, -3),
        "float-delta": (0.5, 3.0, 0.75),
    }[form]
    if form == "float-delta" and dtype == "int64":
        args = (0, 9, 2)  # an int64 range takes integer bounds
    kw = {} if dtype == "inferred" else {"dtype": getattr(tf, dtype)}
    out = ctx.measure(lambda: tf.range(*args, **kw))
    want = dtype if dtype != "inferred" else ("float32" if form == "float-delta" else "int32")
    ctx.check(out.dtype.name == want, f"dtype {out.dtype.name}, not {want}", "type")
    ctx.check_close(out, np.arange(*args, dtype="float64"), rtol=1e-6, atol=1e-6)
