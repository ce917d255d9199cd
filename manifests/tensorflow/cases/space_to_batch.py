"""tf.nn.space_to_batch: block shapes, paddings, dtypes, graph/XLA, gradient (NHWC, spatial dims 1..M)."""

import numpy as np
from tfhelp import ALL_DTYPES, GRAD2_FLOATS, MODES, REAL_FLOATS, by_mode, raises

from portbench_runner.api import case, sweep


def _space_to_batch(x, block, pads):
    """The documented definition: pad, split each spatial dim by its block, move blocks to batch."""
    m = len(block)
    padded = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - 1 - m))
    b = x.shape[0]
    spatial = padded.shape[1 : 1 + m]
    rest = padded.shape[1 + m :]
    shape = [b]
    for s, k in zip(spatial, block):
        shape += [s // k, k]
    y = padded.reshape(shape + list(rest))
    # [b, s1/k1, k1, s2/k2, k2, ...] -> [k1, k2, ..., b, s1/k1, s2/k2, ..., rest]
    block_axes = [2 + 2 * i for i in range(m)]
    space_axes = [1 + 2 * i for i in range(m)]
    rest_axes = list(range(1 + 2 * m, y.ndim))
    y = y.transpose([*block_axes, 0, *space_axes, *rest_axes])
    return y.reshape(
        [b * int(np.prod(block))] + [s // k for s, k in zip(spatial, block)] + list(rest)
    )


@case("float32-2x2", dtype="float32", shape=(2, 4, 6, 3), block=[2, 2], pads=[[0, 0], [0, 0]])
@case(
    "float64-padded-graph",
    dtype="float64",
    shape=(1, 3, 5, 2),
    block=[2, 3],
    pads=[[1, 0], [0, 1]],
    mode="graph",
)
@case("int32-1d", dtype="int32", shape=(3, 8, 2), block=[4], pads=[[0, 0]])
@case(
    "float32-xla",
    dtype="float32",
    shape=(2, 4, 4, 1),
    block=[2, 2],
    pads=[[0, 0], [0, 0]],
    mode="xla",
)
@case("float32-large", dtype="float32", shape=(4, 256, 256, 4), block=[4, 4], pads=[[0, 0], [0, 0]])
def stb_values(ctx, dtype, shape, block, pads, mode="eager"):
    import tensorflow as tf

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    fn = by_mode(ctx, lambda t: tf.nn.space_to_batch(t, block, pads), mode)
    out = ctx.measure(fn, ctx.put(x))
    ctx.check_equal(out, _space_to_batch(x, block, pads))


@case("indivisible-raises")
def stb_invalid(ctx):
    import tensorflow as tf

    x = ctx.put(np.zeros((1, 5, 4, 1), dtype="float32"))
    errors = (tf.errors.InvalidArgumentError, ValueError)
    out = ctx.measure(raises(lambda: tf.nn.space_to_batch(x, [2, 2], [[0, 0], [0, 0]]), *errors))
    ctx.check(out is not None, "a 5-row input split by a block of 2 raised nothing", "other")


@case("gradient-is-batch-to-space")
def stb_grad(ctx):
    import tensorflow as tf

    x_np = ctx.rng.standard_normal((1, 4, 4, 1)).astype("float32")
    w = ctx.rng.standard_normal((4, 2, 2, 1)).astype("float32")
    x = ctx.put(x_np)

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.nn.space_to_batch(x, [2, 2], [[0, 0], [0, 0]]) * w)
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    # d/dx of sum(S(x) * w) = S^T(w): find it by moving indices through the reference.
    ids = np.arange(16, dtype="float64").reshape(1, 4, 4, 1)
    moved = _space_to_batch(ids, [2, 2], [[0, 0], [0, 0]])
    expected = np.zeros(16)
    expected[moved.astype(int).ravel()] = w.ravel()
    ctx.check_close(out, expected.reshape(1, 4, 4, 1), dtype="float32")


# Every dtype, eager, in a tf.function and under XLA, with int32 and int64 block shape and
# paddings (the two index dtypes the op takes); new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=ALL_DTYPES, mode=MODES)
@sweep("index-{idx}-{mode}-sweep", idx=["int32", "int64"], mode=MODES, dtype="float32")
def stb_dtypes(ctx, dtype, mode, idx="int32"):
    import tensorflow as tf
    from tfhelp import draw, placed

    x, exact = placed(ctx, draw(ctx, (2, 4, 6, 3), dtype, -9, 9), dtype)
    block = np.array([2, 3], dtype=idx)
    pads = np.array([[0, 2], [1, 2]], dtype=idx)
    fn = lambda t: tf.nn.space_to_batch(t, block, pads)  # noqa: E731
    out = ctx.measure(by_mode(ctx, fn, mode), x)
    ctx.check_equal(out, _space_to_batch(exact, [2, 3], pads.tolist()))


# The gradient moves the upstream gradient back (batch_to_space) in every float dtype.
@sweep("grad-{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def stb_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad

    def fn(t):
        return tf.nn.space_to_batch(tf.reshape(t, (1, 8, 8, 1)), [2, 4], [[0, 0], [0, 0]]) ** 2

    swept_grad(ctx, fn, lambda x: 2 * x, dtype, mode, shape=(64,))


# The study's other kinds of paths: the documented errors for bad arguments (a padded size
# the block does not divide, a negative padding, a zero block: exact type and message), the
# Hessian through nested GradientTapes of sum(space_to_batch(x)**3) (it only moves elements:
# diag(6x)) in float32 and float64, and tf.vectorized_map of space_to_batch over an outer
# axis, eager, in a tf.function and under XLA. New names; the cases above keep their ids.
@sweep("error-{form}", form=["indivisible", "negative-padding", "zero-block"])
def stb_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    shape, block, pads, pattern = {
        "indivisible": ((1, 3, 3, 1), [2, 2], [[0, 0], [0, 0]], r"is not divisible by block"),
        "negative-padding": (
            (1, 4, 4, 1),
            [2, 2],
            [[-1, 1], [0, 0]],
            r"Paddings must be non-negative",
        ),
        "zero-block": (
            (1, 4, 4, 1),
            [0, 2],
            [[0, 0], [0, 0]],
            r"All values in block_shape must be positive",
        ),
    }[form]
    x = ctx.put(np.ones(shape, dtype="float32"))
    check_raises(
        ctx, lambda: tf.nn.space_to_batch(x, block, pads), tf.errors.InvalidArgumentError, pattern
    )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def stb_hessian(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_hessian

    def f(t):
        return tf.reduce_sum(
            tf.nn.space_to_batch(tf.reshape(t, (1, 4, 2, 1)), [2, 2], [[0, 0], [0, 0]]) ** 3
        )

    swept_hessian(ctx, f, lambda x: np.diag(6 * x), dtype, mode, shape=(8,))


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def stb_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx,
        lambda t: tf.nn.space_to_batch(t, [2], [[1, 1]]),
        lambda x: _space_to_batch(x, [2], [[1, 1]]),
        "float32",
        mode,
        shape=(3, 2, 4, 2),
    )
