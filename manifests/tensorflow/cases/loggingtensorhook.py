"""tf.estimator.LoggingTensorHook: logs chosen tensors every N steps (via its formatter) and at end.

tf.estimator was removed in TensorFlow 2.16: there the cases skip.
"""

import numpy as np
from tfhelp import raises, v1_graph

from portbench_runner.api import case

NAME = "tensorflow.estimator.LoggingTensorHook"


def _graph(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        step = v1.train.create_global_step()
        value = v1.Variable(np.float32(0.0), name="value")
        train = tf.group(v1.assign_add(value, 1.5), v1.assign_add(step, 1))
        read = tf.identity(value)  # a float tensor to log (the variable's name may be its handle)
    return graph, train, read


def _run(ctx, steps, **hook_kw):
    import tensorflow as tf

    hook_cls = ctx.require(NAME)
    logged = []
    graph, train, value = _graph(ctx)
    with graph.as_default():
        hook = hook_cls(
            {"v": value.name},
            formatter=lambda values: logged.append(float(values["v"])) or "",
            **hook_kw,
        )
        with tf.compat.v1.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(steps - 1):
                sess.run(train)
            ctx.measure(sess.run, train, warm=False)
    return logged


@case("every-step")
def every_step(ctx):
    logged = _run(ctx, 3, every_n_iter=1)
    # The hook fetches the tensor in the same run as the train op: values seen before each update.
    ctx.check(len(logged) == 3, f"logged {logged}", "other")


@case("every-second-step")
def every_second(ctx):
    logged = _run(ctx, 5, every_n_iter=2)
    ctx.check(len(logged) == 3, f"5 steps with every_n_iter=2 logged {logged}", "other")


@case("at-end")
def at_end(ctx):
    logged = _run(ctx, 2, every_n_iter=100, at_end=True)
    ctx.check(
        len(logged) == 2 and logged[-1] == 3.0,
        f"logged {logged} (first step, then the end value 3.0)",
        "other",
    )


@case("needs-a-trigger")
def bad_args(ctx):

    hook_cls = ctx.require(NAME)
    out = ctx.measure(raises(lambda: hook_cls({"a": "a:0"}), ValueError))
    ctx.check(out == "ValueError", f"no every_n_iter/every_n_secs/at_end raised {out}", "other")
