"""tf.compat.v1.is_variable_initialized: False before and True after a variable's initializer runs."""

import numpy as np
from tfhelp import v1_graph, v1_session

from portbench_runner.api import case


@case("resource-before-and-after", use_resource=True)
@case("ref-before-and-after", use_resource=False)
def before_after(ctx, use_resource):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        v = v1.get_variable("v", [3], use_resource=use_resource, initializer=v1.ones_initializer())
        flag = v1.is_variable_initialized(v)
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        before = sess.run(flag)
        sess.run(init)
        after = ctx.measure(sess.run, flag)
    ctx.check(not before and bool(after), f"before={before}, after={after}", "other")


@case("partial-initialization")
def partial(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        a = v1.Variable(np.zeros(2))
        b = v1.Variable(np.zeros(2))
        flags = [v1.is_variable_initialized(a), v1.is_variable_initialized(b)]
    with v1_session(graph) as sess:
        sess.run(a.initializer)
        out = ctx.measure(sess.run, flags)
    ctx.check([bool(x) for x in out] == [True, False], f"flags {out}", "other")


@case("many-variables")
def many(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        variables = [v1.Variable(np.float32(i)) for i in range(200)]
        flags = tf.stack([v1.is_variable_initialized(v) for v in variables])
    with v1_session(graph) as sess:
        for v in variables[::2]:
            sess.run(v.initializer)
        out = ctx.measure(sess.run, flags)
    ctx.check_equal(out, np.arange(200) % 2 == 0)
