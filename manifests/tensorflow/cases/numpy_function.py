"""tf.numpy_function: runs NumPy code on the host from eager and graph code; several outputs; XLA.

The XLA case documents a limitation: a Python callback cannot be compiled, so it fails at call
with `not_implemented` (tf.function(jit_compile=True) refuses PyFunc ops).
"""

import numpy as np
from tfhelp import ALL_DTYPES, EAGER_GRAPH, MODES, by_mode

from portbench_runner.api import case, sweep


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


# Every dtype through the host function and back (NumPy sees the same dtype: bfloat16 as
# ml_dtypes' bfloat16), eagerly, from a tf.function and under XLA; XLA cannot compile the
# host callback by design, so the xla column fails at call on every device, the CPU
# included (not_implemented). New names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=ALL_DTYPES, mode=MODES)
def dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import draw, placed

    x, exact = placed(ctx, draw(ctx, (6, 5), dtype, -9, 9), dtype)
    seen = []

    def host(a):
        seen.append(a.dtype.name)
        return np.flip(a, -1), np.asarray(a.shape, dtype="int64")

    fn = lambda t: tf.numpy_function(host, [t], (getattr(tf, dtype), tf.int64))  # noqa: E731
    flipped, shape = ctx.measure(by_mode(ctx, fn, mode), x)
    ctx.check(seen and seen[0] == dtype, f"the host function saw {seen[:1]}, not {dtype}", "type")
    ctx.check_equal(flipped, np.flip(exact, -1))
    ctx.check_equal(shape, np.array([6, 5]))


# Forms: several inputs of mixed dtypes (NumPy promotes float32 * int64 to float64), a Python
# float input (converted to a float32 tensor first), and no inputs at all.
@sweep(
    "{form}-{mode}-sweep",
    form=["mixed-inputs", "scalar-input", "no-inputs"],
    mode=["eager", "graph"],
)
def forms(ctx, form, mode):
    import tensorflow as tf

    a = ctx.put(np.array([1.5, -2.0], dtype="float32"))
    b = ctx.put(np.array([3, 4], dtype="int64"))
    if form == "mixed-inputs":
        fn = lambda u, v: tf.numpy_function(lambda p, q: p * q, [u, v], tf.float64)  # noqa: E731
        expected = np.array([4.5, -8.0])
    elif form == "scalar-input":
        fn = lambda u, v: tf.numpy_function(lambda p, k: p + k, [u, 10.0], tf.float32)  # noqa: E731
        expected = np.array([11.5, 8.0], dtype="float32")
    else:
        fn = lambda u, v: tf.numpy_function(lambda: np.arange(3), [], tf.int64)  # noqa: E731
        expected = np.arange(3)
    out = ctx.measure(by_mode(ctx, fn, mode), a, b)
    ctx.check_equal(out, expected)


# numpy_function is not differentiable: the tape records no gradient through it.
@case("gradient-is-none")
def no_gradient(ctx):
    import tensorflow as tf

    x = ctx.put(np.array([1.0, 2.0], dtype="float32"))

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.numpy_function(lambda a: a * 2, [x], tf.float32))
        return tape.gradient(y, x)

    out = ctx.measure(lambda: [grad()], warm=False)
    ctx.check(out[0] is None, f"a gradient came through the host function: {out[0]}", "other")


# The study's other kinds of paths: the documented error path of the wrapped function (an
# exception raised in the NumPy code reaches the caller as itself: exact type and message),
# the full grid of stateful (True, False) x Tout (one dtype, a list of two), and
# tf.vectorized_map over a numpy_function (no vectorizing rule: tf.vectorized_map falls back
# to a loop), eager and in a tf.function. New names; the cases above keep their ids.
@case("error-raised-in-numpy-code")
def numpy_function_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    def broken(a):
        raise ZeroDivisionError("portbench: division by zero in the host code")

    x = ctx.put(np.ones(2, dtype="float32"))
    check_raises(
        ctx,
        lambda: tf.numpy_function(broken, [x], tf.float32),
        ZeroDivisionError,
        r"portbench: division by zero in the host code",
    )


@sweep(
    "flags-{stateful}-{tout}-sweep",
    stateful=["stateful", "stateless"],
    tout=["one-dtype", "two-outputs"],
)
def numpy_function_flags(ctx, stateful, tout):
    import tensorflow as tf

    x = ctx.rng.standard_normal(8).astype("float32")
    if tout == "one-dtype":
        fn, kinds, expected = (lambda a: a * 2), tf.float32, [x * 2]
    else:
        fn, kinds, expected = (
            (lambda a: (a * 2, a.astype("int32"))),
            [tf.float32, tf.int32],
            [x * 2, x.astype("int32")],
        )
    call = tf.function(lambda t: tf.numpy_function(fn, [t], kinds, stateful=stateful == "stateful"))
    out = ctx.measure(call, ctx.put(x))
    outs = [out] if tout == "one-dtype" else list(out)
    for got, want in zip(outs, expected):
        ctx.check_equal(got, want)


@sweep("vectorized-map-{mode}-sweep", mode=EAGER_GRAPH)
def numpy_function_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import by_mode

    x = ctx.rng.standard_normal((5, 7)).astype("float32")
    mapped = lambda t: tf.vectorized_map(lambda r: tf.numpy_function(_host_op, [r], tf.float32), t)  # noqa: E731
    out = ctx.measure(by_mode(ctx, mapped, mode), ctx.put(x))
    ctx.check_equal(out, np.stack([_host_op(r) for r in x]))
