"""tf.lookup.KeyValueTensorInitializer: fills a StaticHashTable; lookups, defaults, dtypes, TF1 graphs."""

import numpy as np
from tfhelp import raises, v1_graph, v1_session

from portbench_runner.api import case


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
