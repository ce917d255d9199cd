"""tf.cast: conversions between float, integer, bool and bfloat16; eager, graph and XLA."""

import numpy as np

from portbench_runner.api import case


@case("float32-to-int32-eager", src="float32", dst="int32")
@case("float64-to-float32-graph", src="float64", dst="float32", mode="graph")
@case("float32-to-bfloat16-xla", src="float32", dst="bfloat16", mode="xla")
@case("int64-to-float64-eager", src="int64", dst="float64")
@case("float32-to-bool-eager", src="float32", dst="bool")
@case("float32-large-to-float16", src="float32", dst="float16", shape=(1_000_000,))
def cast_values(ctx, src, dst, mode="eager", shape=(64, 64)):
    import tensorflow as tf

    x = (ctx.rng.standard_normal(shape) * 50).astype(src)
    if src == "float32" and dst == "bool":
        x[::3] = 0.0
    fn = lambda t: tf.cast(t, getattr(tf, dst))  # noqa: E731
    fn = {"eager": fn, "graph": ctx.graph(fn) if mode == "graph" else fn, "xla": ctx.compiled(fn) if mode == "xla" else fn}[mode]
    out = ctx.measure(fn, ctx.put(x))
    if dst in ("int32", "bool"):
        # C-style truncation toward zero for float -> int; nonzero -> True for bool.
        ctx.check_equal(out, np.trunc(x).astype(dst) if dst == "int32" else x != 0)
    elif dst == "bfloat16":
        ctx.check_close(out, x.astype("float64"), dtype="bfloat16", rtol=8e-3)
    else:
        ctx.check_close(out, x.astype(dst).astype("float64"), dtype=dst)


@case("gradient-through-cast")
def cast_gradient(ctx):
    import tensorflow as tf

    x = ctx.put(ctx.rng.standard_normal((32,)).astype("float32"))

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.cast(x, tf.float64) * 3.0)
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    ctx.check_close(out, np.full(32, 3.0), dtype="float32")
