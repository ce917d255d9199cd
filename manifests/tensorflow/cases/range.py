"""tf.range: start/limit/delta, negative and fractional steps, dtypes, empty, large, graph/XLA."""

import numpy as np
from tfhelp import by_mode

from portbench_runner.api import case


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
