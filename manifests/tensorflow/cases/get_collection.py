"""tf.compat.v1.get_collection: named collections of a TF1 graph, scope filtering, variable collections."""

from tfhelp import boxed, v1_graph

from portbench_runner.api import case


@case("custom-key-in-order")
def custom(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        items = [tf.constant(i, name=f"c{i}") for i in range(5)]
        for t in items:
            v1.add_to_collection("portbench", t)
        out = ctx.measure(boxed(v1.get_collection), "portbench").value
    ctx.check(out == items, f"collection holds {[t.name for t in out]}", "other")


@case("scope-filter")
def scoped(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        with tf.name_scope("enc"):
            a = tf.constant(1.0, name="a")
        with tf.name_scope("dec"):
            b = tf.constant(2.0, name="b")
        v1.add_to_collections(["acts"], a)
        v1.add_to_collections(["acts"], b)
        out = ctx.measure(boxed(v1.get_collection), "acts", scope="dec").value
    ctx.check(
        [t.name for t in out] == ["dec/b:0"], f"scope 'dec' gave {[t.name for t in out]}", "other"
    )


@case("global-and-trainable-variables")
def variables(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        w = v1.get_variable("w", [2], initializer=v1.zeros_initializer())
        s = v1.get_variable("s", [], trainable=False, initializer=v1.zeros_initializer())
        both = boxed(
            lambda: (
                v1.get_collection(v1.GraphKeys.GLOBAL_VARIABLES),
                v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES),
            )
        )
        out = ctx.measure(both).value
    ctx.check(out[0] == [w, s] and out[1] == [w], f"global {out[0]}, trainable {out[1]}", "other")


@case("unknown-key-empty-and-copied")
def unknown(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        out = ctx.measure(boxed(v1.get_collection), "nothing-here").value
        out.append(1)  # the returned list is a copy: changing it must not change the graph
        again = v1.get_collection("nothing-here")
    ctx.check(again == [], f"the collection changed to {again}", "other")
