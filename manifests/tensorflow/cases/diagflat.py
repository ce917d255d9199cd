"""tf.experimental.numpy.diagflat: vectors, flattened matrices, offsets k, dtypes, graph/XLA."""

import numpy as np
from tfhelp import by_mode

from portbench_runner.api import case


@case("float32-vector", dtype="float32", shape=(8,), k=0)
@case("float64-k2-graph", dtype="float64", shape=(5,), k=2, mode="graph")
@case("int32-k-minus1", dtype="int32", shape=(6,), k=-1)
@case("float32-matrix-flattened", dtype="float32", shape=(3, 4), k=0)
@case("bool-vector", dtype="bool", shape=(7,), k=1)
@case("float32-xla", dtype="float32", shape=(16,), k=-3, mode="xla")
@case("float32-large-1000", dtype="float32", shape=(1000,), k=0)
@case("float32-empty", dtype="float32", shape=(0,), k=0)
def diagflat_values(ctx, dtype, shape, k, mode="eager"):
    import tensorflow as tf

    if dtype == "bool":
        x = ctx.rng.random(shape) > 0.5
    elif dtype == "int32":
        x = ctx.rng.integers(-9, 9, size=shape).astype("int32")
    else:
        x = ctx.rng.standard_normal(shape).astype(dtype)
    fn = by_mode(ctx, lambda t: tf.experimental.numpy.diagflat(t, k=k), mode)
    out = ctx.measure(fn, ctx.put(x))
    ctx.check_equal(out, np.diagflat(x, k=k))
