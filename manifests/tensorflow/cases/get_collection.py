"""tf.compat.v1.get_collection: named collections of a TF1 graph, scope filtering, variable collections."""

from tfhelp import boxed, v1_graph

from portbench_runner.api import case, sweep


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


def _fill(tf, key):
    """Makes, the way TF1 code does, one item that belongs under GraphKeys.``key``;
    returns (the item, a decoy under another scope)."""
    v1 = tf.compat.v1
    with v1.variable_scope("pick"):
        if key in ("GLOBAL_VARIABLES", "TRAINABLE_VARIABLES"):
            item = v1.get_variable("w", [2])
        elif key == "LOCAL_VARIABLES":
            item = v1.get_variable("n", [], collections=[v1.GraphKeys.LOCAL_VARIABLES])
        elif key == "MODEL_VARIABLES":
            item = v1.get_variable("m", [], collections=[v1.GraphKeys.MODEL_VARIABLES])
        elif key == "LOSSES":
            item = v1.losses.mean_squared_error(tf.zeros([3]), tf.ones([3]))
        elif key == "MOVING_AVERAGE_VARIABLES":
            item = v1.get_variable("avg", [2])
            tf.train.ExponentialMovingAverage(0.9).apply([item])  # registers the averaged var
        elif key == "REGULARIZATION_LOSSES":
            item = v1.get_variable("r", [2], regularizer=lambda t: tf.reduce_sum(t * t))
            item = None
    with v1.variable_scope("other"):
        v1.get_variable("decoy", [1], collections=[getattr(v1.GraphKeys, key), "all"])
    return item


# The standard GraphKeys collections, each filled the way TF1 code fills it (variables,
# local and model variables, losses, averaged variables, regularization losses), read
# with a scope filter that drops a decoy under another scope. New names.
@sweep(
    "key-{key}-sweep",
    key=[
        "GLOBAL_VARIABLES",
        "TRAINABLE_VARIABLES",
        "LOCAL_VARIABLES",
        "MODEL_VARIABLES",
        "LOSSES",
        "MOVING_AVERAGE_VARIABLES",
        "REGULARIZATION_LOSSES",
    ],
)
def standard_keys(ctx, key):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        item = _fill(tf, key)
        name = getattr(v1.GraphKeys, key)
        out = ctx.measure(boxed(v1.get_collection), name, scope="pick").value
        everything = v1.get_collection(name)
    want = 1
    ctx.check(
        len(out) == want,
        f"{key} under 'pick' holds {[getattr(t, 'name', t) for t in out]}",
        "other",
    )
    ctx.check(
        all(getattr(t, "name", "").startswith("pick/") for t in out), f"{key} scope filter", "other"
    )
    ctx.check(len(everything) == want + 1, f"{key} unfiltered holds {len(everything)}", "other")
    if item is not None:
        ctx.check(out[0] is item, f"{key} holds {out[0]}, not {item}", "other")


@case("get-collection-ref-is-live")
def ref(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        live = v1.get_collection_ref("portbench")
        live.append("added-through-the-ref")
        out = ctx.measure(boxed(v1.get_collection), "portbench").value
    ctx.check(
        out == ["added-through-the-ref"], f"get_collection after a ref append: {out}", "other"
    )


# The study's other kind of path here: the full grid of its two arguments, key (global
# variables, trainable variables, a custom key) x scope (none, a name prefix, a regular
# expression, one that matches nothing: scope is matched with re.match against each item's
# name). get_collection takes any key (an unknown one is an empty list), so it has no
# documented error path. New names; the cases above keep their ids.
@sweep(
    "flags-{key}-scope-{scope}-sweep",
    key=["global-variables", "trainable-variables", "custom"],
    scope=["none", "prefix", "regex", "no-match"],
)
def collection_flags(ctx, key, scope):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        made = {}
        for block in ("enc", "dec", "head"):
            with v1.variable_scope(block):
                made[f"{block}/w"] = v1.get_variable("w", [1])
                made[f"{block}/frozen"] = v1.get_variable("frozen", [1], trainable=False)
                t = tf.constant(0.0, name="act")
                v1.add_to_collection("portbench-acts", t)
                made[f"{block}/act"] = t
        graph_key = {
            "global-variables": v1.GraphKeys.GLOBAL_VARIABLES,
            "trainable-variables": v1.GraphKeys.TRAINABLE_VARIABLES,
            "custom": "portbench-acts",
        }[key]
        pattern = {"none": None, "prefix": "dec", "regex": "(enc|head)/", "no-match": "nothing"}[
            scope
        ]
        out = ctx.measure(boxed(v1.get_collection), graph_key, scope=pattern).value
    kinds = {
        "global-variables": ("w", "frozen"),
        "trainable-variables": ("w",),
        "custom": ("act",),
    }[key]
    blocks = {
        "none": ("enc", "dec", "head"),
        "prefix": ("dec",),
        "regex": ("enc", "head"),
        "no-match": (),
    }[scope]
    expected = [made[f"{b}/{k}"] for b in ("enc", "dec", "head") for k in kinds if b in blocks]
    got_names = sorted(t.name for t in out)
    want_names = sorted(t.name for t in expected)
    ctx.check(
        got_names == want_names,
        f"key {key}, scope {pattern!r}: {got_names}, expected {want_names}",
        "other",
    )
