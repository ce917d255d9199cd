"""tf.strings.as_string, the op of the study's decode_test.py (class AsStringOpTest).

The study's row names no function: its timed region only defined a lambda calling
bytes.decode (used to read as_string's output). The test class checks as_string's
formatting options, so those are what these cases test.
"""

import numpy as np

from portbench_runner.api import case


def _decoded(ctx, out):
    return [b.decode() for b in ctx.to_numpy(out).ravel()]


@case("int32-default")
def ints(ctx):
    import tensorflow as tf

    x = np.array([0, -5, 123456789], dtype="int32")
    out = ctx.measure(tf.strings.as_string, ctx.put(x))
    ctx.check(_decoded(ctx, out) == ["0", "-5", "123456789"], f"gave {_decoded(ctx, out)}", "other")


@case("int64-width-fill")
def width_fill(ctx):
    import tensorflow as tf

    x = np.array([7, -42, 2**40], dtype="int64")
    out = ctx.measure(tf.strings.as_string, ctx.put(x), width=5, fill="0")
    got = _decoded(ctx, out)
    ctx.check(got == ["00007", "-0042", str(2**40)], f"gave {got}", "other")


@case("float32-precision")
def precision(ctx):
    import tensorflow as tf

    x = np.array([3.14159, -0.5, 100.0], dtype="float32")
    out = ctx.measure(tf.strings.as_string, ctx.put(x), precision=2)
    ctx.check(
        _decoded(ctx, out) == ["3.14", "-0.50", "100.00"], f"gave {_decoded(ctx, out)}", "other"
    )


@case("float64-scientific")
def scientific(ctx):
    import tensorflow as tf

    x = np.array([12345.678, 0.00025])
    out = ctx.measure(tf.strings.as_string, ctx.put(x), precision=3, scientific=True)
    ctx.check(
        _decoded(ctx, out) == ["1.235e+04", "2.500e-04"], f"gave {_decoded(ctx, out)}", "other"
    )


@case("float32-shortest")
def shortest(ctx):
    import tensorflow as tf

    x = np.array([0.1, 1e-10, 123.0], dtype="float32")
    out = ctx.measure(tf.strings.as_string, ctx.put(x), shortest=True)
    ctx.check(_decoded(ctx, out) == ["0.1", "1e-10", "123"], f"gave {_decoded(ctx, out)}", "other")


@case("bool-values")
def bools(ctx):
    import tensorflow as tf

    out = ctx.measure(tf.strings.as_string, ctx.put(np.array([True, False])))
    ctx.check(_decoded(ctx, out) == ["true", "false"], f"gave {_decoded(ctx, out)}", "other")


@case("large-graph")
def large(ctx):
    import tensorflow as tf

    x = np.arange(100_000, dtype="int32").reshape(100, 1000)
    out = ctx.measure(ctx.graph(tf.strings.as_string), ctx.put(x))
    got = ctx.to_numpy(out)
    ctx.check(got.shape == (100, 1000) and got[99, 999] == b"99999", f"shape {got.shape}", "other")
