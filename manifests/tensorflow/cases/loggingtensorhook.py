"""tf.estimator.LoggingTensorHook: logs chosen tensors every N steps (via its formatter) and at end.

tf.estimator was removed in TensorFlow 2.16: there the cases skip.
"""

import numpy as np
from tfhelp import ALL_DTYPES, STRINGS, raises, v1_graph

from portbench_runner.api import case, sweep

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


# A logged tensor of every dtype (string included): the formatter receives its value, as
# fetched in the step's run; new names, so the cases above keep their ids.
@sweep("{dtype}-sweep", dtype=ALL_DTYPES + STRINGS)
def dtypes(ctx, dtype):
    import tensorflow as tf
    from tfhelp import draw

    hook_cls = ctx.require(NAME)
    v1 = tf.compat.v1
    if dtype == "string":
        value = np.array([b"x", b"yz"], dtype=object)
    elif dtype == "bfloat16":
        value = np.array([1.5, -2.0, 0.25], dtype="float32")  # exact in bfloat16
    else:
        value = draw(ctx, (3,), dtype, -9, 9)
    logged = []
    with v1_graph(ctx):
        step = v1.train.create_global_step()
        train = v1.assign_add(step, 1)
        tensor = tf.constant(value, dtype=getattr(tf, dtype))
        hook = hook_cls(
            {"t": tensor}, every_n_iter=1, formatter=lambda vals: logged.append(vals["t"]) or ""
        )
        with v1.train.MonitoredSession(hooks=[hook]) as sess:
            ctx.measure(sess.run, train, warm=False)
    ctx.check(len(logged) == 1, f"logged {len(logged)} times in one step", "other")
    ctx.check_equal(np.asarray(logged[0]).astype(value.dtype), value)


# The tensors argument in its forms (a list of names, a list of Tensors, a dict of names),
# a time trigger (every_n_secs: the first step logs), and the default formatter (logged
# through TensorFlow's logger, captured here).
@sweep(
    "form-{form}-sweep",
    form=["name-list", "tensor-list", "name-dict", "every-n-secs", "default-formatter"],
)
def forms(ctx, form):
    import logging

    import tensorflow as tf

    hook_cls = ctx.require(NAME)
    v1 = tf.compat.v1
    logged, records = [], []
    graph, train, read = _graph(ctx)
    with graph.as_default():
        tensors = {
            "name-list": [read.name],
            "tensor-list": [read],
            "name-dict": {"v": read.name},
        }.get(form, {"v": read.name})
        kwargs = {"every_n_secs": 3600} if form == "every-n-secs" else {"every_n_iter": 1}
        if form != "default-formatter":
            kwargs["formatter"] = lambda vals: logged.append(dict(vals)) or ""
        hook = hook_cls(tensors, **kwargs)
        handler = logging.Handler()
        handler.emit = lambda record: records.append(record.getMessage())
        logger = logging.getLogger("tensorflow")
        logger.addHandler(handler)
        old_level = logger.level
        logger.setLevel(logging.INFO)
        try:
            with v1.train.MonitoredSession(hooks=[hook]) as sess:
                sess.run(train)
                ctx.measure(sess.run, train, warm=False)
        finally:
            logger.removeHandler(handler)
            logger.setLevel(old_level)
    if form == "default-formatter":
        text = [r for r in records if r.startswith("v = ")]
        ctx.check(text[:1] in (["v = 0.0"], ["v = 1.5"]), f"log lines {records[-4:]}", "other")
        return
    want = 1 if form == "every-n-secs" else 2  # an hour-long period logs the first step only
    ctx.check(len(logged) == want, f"logged {logged}", "other")
    # The read and the update share a run with no order between them: the first step sees
    # the variable before (0.0) or after (1.5) its first update.
    first = [float(v) for v in logged[0].values()]
    ctx.check(len(first) == 1 and first[0] in (0.0, 1.5), f"logged {logged}", "other")


# The study's other kind of path here: the documented errors for the trigger (none given,
# both every_n_iter and every_n_secs, every_n_iter of 0: exact type and message). New names;
# the cases above keep their ids (skipped where tf.estimator is gone).
@sweep("error-{form}", form=["no-trigger", "iter-and-secs", "zero-iter"])
def logging_hook_errors(ctx, form):
    from tfhelp import check_raises

    hook_cls = ctx.require(NAME)
    kw, pattern = {
        "no-trigger": (
            {},
            r"either at_end and/or exactly one of every_n_iter and every_n_secs must be provided",
        ),
        "iter-and-secs": (
            {"every_n_iter": 1, "every_n_secs": 1},
            r"either at_end and/or exactly one of every_n_iter and every_n_secs must be provided",
        ),
        "zero-iter": ({"every_n_iter": 0}, r"invalid every_n_iter=0"),
    }[form]
    check_raises(ctx, lambda: hook_cls({"a": "a:0"}, **kw), ValueError, pattern)
