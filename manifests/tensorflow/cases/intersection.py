"""tf.sets.intersection: per-row set intersection of dense and sparse inputs, as a SparseTensor."""

import numpy as np
from tfhelp import EAGER_GRAPH, SIGNED_INTS

from portbench_runner.api import case, sweep


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


#: The unsigned widths the set ops have kernels for.
SET_UNSIGNED = ("uint8", "uint16")


# Every element dtype the set ops take (the signed integers, uint8, uint16; string is
# covered above; floats, bool and wider unsigned are refused), eager and in a tf.function
# (the sparse set ops have no XLA kernel), dense against dense and dense against sparse;
# new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{form}-{mode}-sweep",
    dtype=SIGNED_INTS + SET_UNSIGNED,
    form=["dense", "sparse"],
    mode=EAGER_GRAPH,
)
def intersection_dtypes(ctx, dtype, form, mode):
    import tensorflow as tf
    from tfhelp import by_mode, check_dtype

    a = ctx.rng.integers(0, 12, size=(5, 8)).astype(dtype)
    b = ctx.rng.integers(0, 12, size=(5, 8)).astype(dtype)
    if form == "dense":
        fn = by_mode(ctx, tf.sets.intersection, mode)
        out = ctx.measure(fn, ctx.put(a), ctx.put(b))
    else:
        # b as a SparseTensor keeping each row's first 5 values (a ragged set per row).
        kept = b[:, :5]
        b = kept
        idx = np.array([[r, c] for r in range(5) for c in range(5)], dtype="int64")
        values = ctx.put(kept.reshape(-1))

        def sparse_fn(x, v):
            return tf.sets.intersection(x, tf.sparse.SparseTensor(idx, v, [5, 5]))

        out = ctx.measure(by_mode(ctx, sparse_fn, mode), ctx.put(a), values)
    check_dtype(ctx, out.values, dtype)
    indices, values = _expected(a, b)
    ctx.check_equal(out.indices, indices, what="indices")
    ctx.check_equal(out.values, np.array(values, dtype=dtype), what="values")
    widest = int(indices[:, 1].max()) + 1 if len(indices) else 0
    ctx.check_equal(out.dense_shape, np.array([5, widest], dtype="int64"), what="dense_shape")


@case("float32-refused")
def floats(ctx):
    import tensorflow as tf
    from tfhelp import raises

    x = ctx.put(np.ones((2, 2), "float32"))
    out = ctx.measure(
        raises(
            lambda: tf.sets.intersection(x, x),
            TypeError,
            ValueError,
            tf.errors.InvalidArgumentError,
        )
    )
    ctx.check(out is not None, "a float32 set intersection raised nothing", "type")


# The study's other kinds of paths: the documented errors for bad operands (floats, two
# integer widths, ranks that differ: exact type and message), duplicate elements within a
# row (a set keeps each element once), and the full grid of validate_indices x operand forms
# (dense and dense, dense and sparse). New names; the cases above keep their ids.
@sweep("error-{form}", form=["float-operands", "mixed-widths", "ranks-differ"])
def intersection_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "float-operands":
        f = ctx.put(np.ones((2, 2), dtype="float32"))
        check_raises(ctx, lambda: tf.sets.intersection(f, f), TypeError, r"'a' has invalid dtype")
    elif form == "mixed-widths":
        a, b = ctx.put(np.ones((2, 2), dtype="int32")), ctx.put(np.ones((2, 2), dtype="int64"))
        check_raises(
            ctx,
            lambda: tf.sets.intersection(a, b),
            TypeError,
            r"Types don't match, <dtype: 'int32'> vs <dtype: 'int64'>",
        )
    else:
        a, b = ctx.put(np.ones((2, 2), dtype="int32")), ctx.put(np.ones((2, 2, 2), dtype="int32"))
        check_raises(
            ctx,
            lambda: tf.sets.intersection(a, b),
            tf.errors.InvalidArgumentError,
            r"Mismatched shapes \[2\] vs \[2,2\]",
        )


@sweep("duplicate-elements-{mode}-sweep", mode=EAGER_GRAPH)
def intersection_duplicates(ctx, mode):
    import tensorflow as tf
    from tfhelp import by_mode

    a = np.array([[3, 3, 1, 3], [2, 2, 2, 2], [5, 6, 5, 7]], dtype="int64")
    b = np.array([[3, 1, 1, 9], [2, 4, 2, 2], [7, 7, 5, 5]], dtype="int64")
    out = ctx.measure(
        by_mode(
            ctx, lambda x, y: tf.sparse.to_dense(tf.sets.intersection(x, y), default_value=-1), mode
        ),
        ctx.put(a),
        ctx.put(b),
    )
    rows = [sorted(set(r) & set(s)) for r, s in zip(a.tolist(), b.tolist())]
    width = max(len(r) for r in rows)
    ctx.check_equal(out, np.array([r + [-1] * (width - len(r)) for r in rows], dtype="int64"))


@sweep(
    "flags-{validate}-{operands}-sweep",
    validate=["validate", "no-validate"],
    operands=["dense-dense", "dense-sparse"],
)
def intersection_flags(ctx, validate, operands):
    import tensorflow as tf

    a = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], dtype="int32")
    b = np.array([[4, 2, 0, 0], [9, 8, 5, 0]], dtype="int32")
    other = ctx.put(b) if operands == "dense-dense" else tf.sparse.from_dense(ctx.put(b))
    out = ctx.measure(
        lambda x, y: tf.sparse.to_dense(
            tf.sets.intersection(x, y, validate_indices=validate == "validate"), default_value=-1
        ),
        ctx.put(a),
        other,
    )
    # 0 is in no row of a: the sparse form (where the zeros are absent) gives the same sets.
    ctx.check_equal(out, np.array([[2, 4], [5, 8]], dtype="int32"))
