"""tf.lookup.KeyValueTensorInitializer: fills a StaticHashTable; lookups, defaults, dtypes, TF1 graphs."""

import numpy as np
from tfhelp import raises, v1_graph, v1_session

from portbench_runner.api import case, sweep


@case("string-to-int64")
def strings(ctx):
    import tensorflow as tf

    keys = tf.constant(["apple", "pear", "fig"])
    values = tf.constant([1, 2, 3], dtype=tf.int64)
    table = ctx.measure(
        lambda: tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, values), -1)
    )
    out = table.lookup(tf.constant(["fig", "plum", "apple"]))
    ctx.check_equal(out, np.array([3, -1, 1], dtype="int64"))
    ctx.check_equal(table.size(), np.int64(3))


@case("int64-to-float32")
def ints(ctx):
    import tensorflow as tf

    keys = np.array([10, 20, 30], dtype="int64")
    values = np.array([0.5, 1.5, 2.5], dtype="float32")
    init = ctx.measure(tf.lookup.KeyValueTensorInitializer, ctx.put(keys), ctx.put(values))
    table = tf.lookup.StaticHashTable(init, default_value=-1.0)
    ctx.check(
        init.key_dtype == tf.int64 and init.value_dtype == tf.float32, "initializer dtypes", "type"
    )
    ctx.check_equal(
        table.lookup(ctx.put(np.array([30, 11], dtype="int64"))),
        np.array([2.5, -1.0], dtype="float32"),
    )


@case("large-table")
def large(ctx):
    import tensorflow as tf

    keys = np.arange(100_000, dtype="int64") * 3
    values = np.arange(100_000, dtype="int64")
    table = ctx.measure(
        lambda: tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, values), -1)
    )
    probe = np.array([0, 3, 299_997, 1], dtype="int64")
    ctx.check_equal(table.lookup(ctx.put(probe)), np.array([0, 1, 99_999, -1], dtype="int64"))


@case("tf1-tables-initializer")
def graph(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        init = v1.lookup.KeyValueTensorInitializer(
            ["a", "b"], [7, 8], key_dtype=tf.string, value_dtype=tf.int64
        )
        table = v1.lookup.StaticHashTable(init, 0)
        out_t = table.lookup(tf.constant(["b", "z", "a"]))
        tables_init = v1.tables_initializer()
    with v1_session(graph) as sess:
        ctx.measure(sess.run, tables_init, warm=False)
        out = sess.run(out_t)
    ctx.check_equal(out, np.array([8, 0, 7], dtype="int64"))


@case("mismatched-lengths-raise")
def mismatch(ctx):
    import tensorflow as tf

    def build():
        return tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1, 2, 3], [1, 2]), 0)

    out = ctx.measure(raises(build, ValueError, tf.errors.InvalidArgumentError))
    ctx.check(out is not None, "3 keys with 2 values raised nothing", "other")


# Every (key, value) dtype pair a StaticHashTable filled by this initializer has a kernel
# for (the pairs TF registers; others, such as int32 keys to int64 values, are refused with
# NotFoundError), built and looked up eagerly and inside a tf.function (lookup tables are
# host ops: XLA does not compile them). New names, so the cases above keep their ids.
@sweep(
    "{pair}-{mode}-sweep",
    pair=[
        "int32-int32",
        "int32-float32",
        "int32-float64",
        "int32-string",
        "int64-int32",
        "int64-int64",
        "int64-float32",
        "int64-float64",
        "int64-string",
        "string-bool",
        "string-int32",
        "string-int64",
        "string-float32",
        "string-float64",
        "string-string",
    ],
    mode=["eager", "graph"],
)
def pairs(ctx, pair, mode):
    import tensorflow as tf
    from tfhelp import by_mode

    kdt, vdt = pair.split("-")

    def column(dtype, ints):
        if dtype == "string":
            return np.array([f"s{i}".encode() for i in ints], dtype=object)
        if dtype == "bool":
            return np.array([i % 2 == 1 for i in ints])
        return np.array(ints).astype(dtype)

    keys = column(kdt, [5, 9, 2, 40, 7])
    values = column(vdt, [1, 3, 4, 6, 8])
    default = column(vdt, [0])[0]
    queries = column(kdt, [9, 3, 7, 40, 2, 11])  # 3 and 11 are not keys
    expected = column(vdt, [3, 0, 8, 6, 4, 0])

    def build_and_lookup(k, v, q):
        init = tf.lookup.KeyValueTensorInitializer(k, v)
        table = tf.lookup.StaticHashTable(init, default)
        return table.lookup(q), table.size()

    fn = by_mode(ctx, build_and_lookup, mode)
    out, size = ctx.measure(fn, tf.constant(keys), tf.constant(values), tf.constant(queries))
    ctx.check(out.dtype.name == vdt, f"looked-up dtype {out.dtype.name}, not {vdt}", "type")
    ctx.check_equal(out, expected)
    ctx.check_equal(size, np.int64(5))


# Argument forms: Python lists with explicit dtypes, key_dtype/value_dtype casting the given
# values; an empty initializer is refused when the table imports it (InvalidArgumentError:
# "keys and values cannot be empty tensors").
@sweep("form-{form}-sweep", form=["python-lists", "cast-dtypes", "empty-refused"])
def forms(ctx, form):
    import tensorflow as tf

    if form == "python-lists":
        make = lambda: tf.lookup.KeyValueTensorInitializer([1, 2, 3], [10, 20, 30])  # noqa: E731
        query, expect, kdt, vdt = [3, 4], [30, -1], tf.int32, tf.int32
    elif form == "cast-dtypes":
        make = lambda: tf.lookup.KeyValueTensorInitializer(  # noqa: E731
            [1, 2, 3], [0.5, 1.5, 2.5], key_dtype=tf.int64, value_dtype=tf.float64
        )
        query, expect, kdt, vdt = [2, 9], [1.5, -1.0], tf.int64, tf.float64
    else:
        from tfhelp import raises

        def build():
            init = tf.lookup.KeyValueTensorInitializer(
                tf.zeros([0], tf.int64), tf.zeros([0], tf.int64)
            )
            return tf.lookup.StaticHashTable(init, tf.constant(-1, tf.int64))

        out = ctx.measure(raises(build, tf.errors.InvalidArgumentError, ValueError))
        ctx.check(out is not None, "an empty initializer filled a table", "other")
        return
    init = ctx.measure(make)
    ctx.check(
        init.key_dtype == kdt and init.value_dtype == vdt,
        f"{init.key_dtype}, {init.value_dtype}",
        "type",
    )
    table = tf.lookup.StaticHashTable(init, tf.cast(-1, vdt))
    ctx.check_equal(table.lookup(tf.constant(query, kdt)), np.array(expect, dtype=vdt.name))


# The study's other kinds of paths: the documented errors for bad tables (keys and values of
# different lengths, a lookup with keys of another dtype: exact type and message), and
# duplicate keys (repeated with the same value they are kept once; with another value the
# table refuses them: exact type and message). New names; the cases above keep their ids.
@sweep("error-{form}", form=["lengths-differ", "lookup-key-dtype"])
def initializer_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "lengths-differ":
        check_raises(
            ctx,
            lambda: tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer([1, 2], [1.0]), -1.0
            ),
            tf.errors.InvalidArgumentError,
            r"Expected shape \[2\] for value, got \[1\]",
        )
    else:
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(tf.constant([1, 2], tf.int64), [1.0, 2.0]), -1.0
        )
        check_raises(
            ctx,
            lambda: table.lookup(tf.constant(["a"])),
            TypeError,
            r"Dtype of argument `keys` must be <dtype: 'int64'>, received: <dtype: 'string'>",
        )


@sweep("duplicate-keys-{values}-sweep", values=["same-value", "other-value"])
def initializer_duplicates(ctx, values):
    import tensorflow as tf
    from tfhelp import check_raises

    keys = tf.constant([1, 2, 1], tf.int64)
    if values == "same-value":
        table = ctx.measure(
            lambda: tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(keys, tf.constant([10.0, 20.0, 10.0])), -1.0
            )
        )
        ctx.check_equal(table.size(), np.int64(2))
        ctx.check_equal(
            table.lookup(tf.constant([1, 2, 3], tf.int64)),
            np.array([10.0, 20.0, -1.0], dtype="float32"),
        )
    else:
        check_raises(
            ctx,
            lambda: tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(keys, tf.constant([10.0, 20.0, 30.0])), -1.0
            ),
            tf.errors.FailedPreconditionError,
            r"HashTable has different value for same key\. Key 1 has 10 and trying to add value 30",
        )
