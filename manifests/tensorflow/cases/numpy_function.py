"""tf.numpy_function: runs NumPy code on the host from eager and graph code; several outputs; XLA.

The XLA case documents a limitation: a Python callback cannot be compiled, so it fails at call
with `not_implemented` (tf.function(jit_compile=True) refuses PyFunc ops).
"""

import numpy as np

from portbench_runner.api import case


def _host_op(a):
    return np.sort(a, axis=-1) * 2


@case("float32-eager", dtype="float32")
@case("float64-eager", dtype="float64")
@case("int64-eager", dtype="int64")
@case("float32-large", dtype="float32", shape=(1000, 1000))
def eager(ctx, dtype, shape=(16, 32)):
    import tensorflow as tf

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    out = ctx.measure(tf.numpy_function, _host_op, [ctx.put(x)], getattr(tf, dtype))
    ctx.check_equal(out, _host_op(x))


@case("graph-two-outputs")
def graph(ctx):
    import tensorflow as tf

    fn = ctx.graph(
        lambda t: tf.numpy_function(lambda a: (a.sum(), a.max()), [t], (tf.float32, tf.float32))
    )
    x = ctx.rng.standard_normal(100).astype("float32")
    total, biggest = ctx.measure(fn, ctx.put(x))
    ctx.check_close(total, np.float64(x.sum(dtype="float32")), dtype="float32")
    ctx.check_equal(biggest, x.max())


@case("stateful-side-effect")
def stateful(ctx):
    import tensorflow as tf

    seen = []

    def record(a):
        seen.append(a.copy())
        return a

    fn = ctx.graph(lambda t: tf.numpy_function(record, [t], tf.int32, stateful=True))
    out = ctx.measure(fn, ctx.put(np.array([7, 8], dtype="int32")), warm=False)
    ctx.check(len(seen) == 1 and list(seen[0]) == [7, 8], f"host function saw {seen}", "other")
    ctx.check_equal(out, np.array([7, 8], dtype="int32"))


@case("xla-jit-compile")
def xla(ctx):
    import tensorflow as tf

    fn = ctx.compiled(lambda t: tf.numpy_function(_host_op, [t], tf.float32))
    x = ctx.rng.standard_normal((4, 4)).astype("float32")
    out = ctx.measure(fn, ctx.put(x))
    ctx.check_equal(out, _host_op(x))
