"""tf.sets.intersection: per-row set intersection of dense and sparse inputs, as a SparseTensor."""

import numpy as np

from portbench_runner.api import case


def _expected(a, b):
    indices, values = [], []
    for r in range(a.shape[0]):
        common = sorted(set(a[r].tolist()) & set(b[r].tolist()))
        for i, v in enumerate(common):
            indices.append([r, i])
            values.append(v)
    return np.array(indices, dtype="int64").reshape(-1, 2), values


@case("int32-rows", dtype="int32", rows=4, width=10)
@case("int64-rows", dtype="int64", rows=8, width=16)
@case("int32-large", dtype="int32", rows=1000, width=100)
def dense(ctx, dtype, rows, width):
    import tensorflow as tf

    a = ctx.rng.integers(0, width, size=(rows, width)).astype(dtype)
    b = ctx.rng.integers(0, width, size=(rows, width)).astype(dtype)
    out = ctx.measure(tf.sets.intersection, ctx.put(a), ctx.put(b))
    indices, values = _expected(a, b)
    ctx.check_equal(out.indices, indices, what="indices")
    ctx.check_equal(out.values, np.array(values, dtype=dtype), what="values")


@case("strings")
def strings(ctx):
    import tensorflow as tf

    a = tf.constant([["a", "b", "c"], ["x", "y", "z"]])
    b = tf.constant([["c", "a", "q"], ["q", "r", "s"]])
    out = ctx.measure(tf.sets.intersection, a, b)
    ctx.check_equal(out.values, np.array([b"a", b"c"], dtype=object), what="values")
    ctx.check_equal(out.dense_shape, np.array([2, 2], dtype="int64"), what="dense_shape")


@case("dense-and-sparse")
def sparse(ctx):
    import tensorflow as tf

    a = np.array([[1, 2, 3], [4, 5, 6]], dtype="int64")
    b = tf.sparse.SparseTensor(
        indices=[[0, 0], [0, 1], [1, 0]],
        values=tf.constant([3, 9, 4], dtype=tf.int64),
        dense_shape=[2, 2],
    )
    out = ctx.measure(tf.sets.intersection, ctx.put(a), b)
    ctx.check_equal(out.indices, np.array([[0, 0], [1, 0]], dtype="int64"), what="indices")
    ctx.check_equal(out.values, np.array([3, 4], dtype="int64"), what="values")


@case("disjoint-is-empty")
def disjoint(ctx):
    import tensorflow as tf

    out = ctx.measure(
        tf.sets.intersection,
        ctx.put(np.array([[1, 2]], dtype="int32")),
        ctx.put(np.array([[3, 4]], dtype="int32")),
    )
    ctx.check(ctx.to_numpy(out.values).size == 0, "disjoint rows intersect", "other")


@case("graph-mode")
def graph(ctx):
    import tensorflow as tf

    fn = ctx.graph(lambda x, y: tf.sparse.to_dense(tf.sets.intersection(x, y), default_value=-1))
    a = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], dtype="int32")
    b = np.array([[4, 3, 0, 0], [8, 8, 8, 8]], dtype="int32")
    out = ctx.measure(fn, ctx.put(a), ctx.put(b))
    ctx.check_equal(out, np.array([[3, 4], [8, -1]], dtype="int32"))
