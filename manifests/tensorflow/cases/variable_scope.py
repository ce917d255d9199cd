"""tf.compat.v1.variable_scope: name prefixes, reuse, AUTO_REUSE, scope initializers, nesting."""

import numpy as np
from tfhelp import ALL_DTYPES, boxed, raises, v1_graph, v1_session

from portbench_runner.api import case, sweep


@case("names-prefixed")
def names(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):

        def build():
            with v1.variable_scope("enc"), v1.variable_scope("layer1"):
                return v1.get_variable("w", [2, 3])

        w = ctx.measure(boxed(build), warm=False).value
    ctx.check(w.name == "enc/layer1/w:0", f"variable name {w.name}", "other")


@case("reuse-returns-same")
def reuse(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        with v1.variable_scope("s"):
            first = v1.get_variable("v", [3])

        def again():
            with v1.variable_scope("s", reuse=True):
                return v1.get_variable("v", [3])

        second = ctx.measure(boxed(again)).value
    ctx.check(second is first, "reuse=True made a new variable", "other")


@case("auto-reuse")
def auto_reuse(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:

        def shared():
            with v1.variable_scope("shared", reuse=v1.AUTO_REUSE):
                return v1.get_variable("b", [1])

        a = ctx.measure(boxed(shared)).value
        b = shared()
        count = len(graph.get_collection(v1.GraphKeys.GLOBAL_VARIABLES))
    ctx.check(a is b and count == 1, f"AUTO_REUSE made {count} variables", "other")


@case("duplicate-without-reuse-raises")
def duplicate(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx):
        with v1.variable_scope("d"):
            v1.get_variable("v", [1])

        def twice():
            with v1.variable_scope("d"):
                v1.get_variable("v", [1])

        out = ctx.measure(raises(twice, ValueError))
    ctx.check(out == "ValueError", f"creating d/v twice raised {out}", "other")


@case("scope-initializer-and-dtype")
def initializer(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:

        def build():
            with v1.variable_scope(
                "init", initializer=v1.constant_initializer(0.25), dtype=tf.float64
            ):
                return v1.get_variable("v", [2, 2])

        v = ctx.measure(boxed(build), warm=False).value
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        out = sess.run(v)
    ctx.check(v.dtype.base_dtype == tf.float64, f"dtype {v.dtype}", "type")
    ctx.check_equal(out, np.full((2, 2), 0.25))


# The scope's dtype and initializer reach get_variable for every dtype (zeros of that
# dtype once initialized); new names, so the cases above keep their ids.
@sweep("scope-dtype-{dtype}-sweep", dtype=ALL_DTYPES)
def scope_dtypes(ctx, dtype):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:

        def build():
            with v1.variable_scope(
                "typed", dtype=getattr(tf, dtype), initializer=v1.zeros_initializer()
            ):
                return v1.get_variable("v", [2, 3])

        v = ctx.measure(boxed(build), warm=False).value
        init = v1.global_variables_initializer()
    ctx.check(v.dtype.base_dtype.name == dtype, f"dtype {v.dtype}", "type")
    with v1_session(graph) as sess:
        sess.run(init)
        out = sess.run(v)
    ctx.check_equal(out, np.zeros((2, 3), dtype=out.dtype))


# Forms: default_name made unique per use, a VariableScope object re-entered, a custom
# getter that wraps creation, a scope regularizer collecting a loss, auxiliary_name_scope
# False (ops keep the outer name scope), and the TF2 eager path (get_variable in a scope
# makes a resource variable with the prefixed name).
@sweep(
    "form-{form}-sweep",
    form=[
        "default-name",
        "scope-object",
        "custom-getter",
        "regularizer",
        "no-aux-name-scope",
        "eager",
    ],
)
def forms(ctx, form):
    import tensorflow as tf

    v1 = tf.compat.v1
    if form == "eager":

        def make():
            with v1.variable_scope("eager_scope"):
                return v1.get_variable("e", [2], initializer=v1.ones_initializer())

        v = ctx.measure(make, warm=False)
        ctx.check(v.name == "eager_scope/e:0", f"name {v.name}", "other")
        ctx.check_equal(v, np.ones(2, dtype="float32"))
        return
    with v1_graph(ctx) as graph:
        if form == "default-name":

            def build():
                names = []
                for _ in range(2):
                    with v1.variable_scope(None, default_name="blk"):
                        names.append(v1.get_variable("k", [1]).name)
                return names

            out = ctx.measure(boxed(build), warm=False).value
            ctx.check(out == ["blk/k:0", "blk_1/k:0"], f"names {out}", "other")
        elif form == "scope-object":
            with v1.variable_scope("outer") as scope:
                first = v1.get_variable("v", [1])

            def again():
                with v1.variable_scope(scope, reuse=True):
                    return v1.get_variable("v", [1])

            second = ctx.measure(boxed(again)).value
            ctx.check(second is first, "re-entering the scope object made a new variable", "other")
        elif form == "custom-getter":
            seen = []

            def wrap(getter, *args, **kwargs):  # TF passes the next getter as `getter=`
                seen.append(kwargs["name"] if "name" in kwargs else args[0])
                return getter(*args, **kwargs)

            def build():
                with v1.variable_scope("g", custom_getter=wrap):
                    return v1.get_variable("w", [3])

            w = ctx.measure(boxed(build), warm=False).value
            ctx.check(seen == ["g/w"] and w.name == "g/w:0", f"getter saw {seen}", "other")
        elif form == "regularizer":

            def build():
                with v1.variable_scope("r", regularizer=lambda t: tf.reduce_sum(t) * 2.0):
                    return v1.get_variable("w", [3], initializer=v1.constant_initializer(1.5))

            ctx.measure(boxed(build), warm=False)
            losses = graph.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
            init = v1.global_variables_initializer()
            with v1_session(graph) as sess:
                sess.run(init)
                total = sess.run(losses)
            ctx.check(len(total) == 1 and float(total[0]) == 9.0, f"losses {total}", "other")
        else:

            def build():
                outer = v1.name_scope("outer_ns")
                with outer, v1.variable_scope("vs", auxiliary_name_scope=False):
                    return v1.get_variable("w", [1]), tf.identity(1.0, name="op")

            w, op = ctx.measure(boxed(build), warm=False).value
            ctx.check(
                w.name == "vs/w:0" and op.name == "outer_ns/op:0", f"{w.name}, {op.name}", "other"
            )


# The study's other kinds of paths: the documented errors (a second variable of one name
# without reuse, reuse of a name never created, reuse with another shape, a reuse flag that
# is no bool: exact type and message), and the full grid of reuse (None, True, AUTO_REUSE) x
# whether the variable exists already: a new variable, the same one, or the documented
# error. New names; the cases above keep their ids.
@sweep(
    "error-{form}", form=["duplicate-name", "reuse-missing", "reuse-other-shape", "reuse-not-bool"]
)
def variable_scope_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    v1 = tf.compat.v1

    def attempt():
        with v1_graph(ctx):
            if form in ("duplicate-name", "reuse-other-shape"):
                with v1.variable_scope("s"):
                    v1.get_variable("v", [1])
            if form == "reuse-not-bool":
                with v1.variable_scope("s", reuse="yes"):
                    pass
                return
            reuse = None if form == "duplicate-name" else True
            with v1.variable_scope("s", reuse=reuse):
                v1.get_variable("v", [2] if form == "reuse-other-shape" else [1])

    pattern = {
        "duplicate-name": r"Variable s/v already exists, disallowed",
        "reuse-missing": r"Variable s/v does not exist, or was not created with tf\.get_variable\(\)",
        "reuse-other-shape": r"Trying to share variable s/v, but specified shape \(2,\) and found shape \(1,\)",
        "reuse-not-bool": r"The reuse parameter must be True or False or None",
    }[form]
    check_raises(ctx, attempt, ValueError, pattern)


@sweep(
    "flags-reuse-{reuse}-{exists}-sweep", reuse=["none", "true", "auto"], exists=["exists", "new"]
)
def variable_scope_flags(ctx, reuse, exists):
    import tensorflow as tf
    from tfhelp import Box

    v1 = tf.compat.v1
    flag = {"none": None, "true": True, "auto": v1.AUTO_REUSE}[reuse]
    with v1_graph(ctx):
        first = None
        if exists == "exists":
            with v1.variable_scope("s"):
                first = v1.get_variable("v", [2], initializer=v1.ones_initializer())

        def attempt():
            try:
                with v1.variable_scope("s", reuse=flag):
                    return Box(
                        (v1.get_variable("v", [2], initializer=v1.zeros_initializer()), None)
                    )
            except ValueError as exc:
                return Box((None, exc))

        got, error = ctx.measure(attempt, warm=False).value
    # Documented: None creates (an existing name is an error), True reuses (a new name is an
    # error), AUTO_REUSE creates or reuses.
    should_fail = (reuse == "none" and exists == "exists") or (reuse == "true" and exists == "new")
    if should_fail:
        ctx.check(error is not None, f"reuse={reuse} on a {exists} variable gave {got!r}", "other")
    else:
        ctx.check(error is None, f"reuse={reuse} on a {exists} variable raised {error!r}", "other")
        ctx.check(
            (got is first) if exists == "exists" else (got is not None and got.name == "s/v:0"),
            f"got {got!r}, first {first!r}",
            "other",
        )
