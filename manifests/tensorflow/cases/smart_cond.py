"""tensorflow.python.framework.smart_cond.smart_cond: static predicates call one branch, dynamic ones build tf.cond."""

import numpy as np

from portbench_runner.api import case

NAME = "tensorflow.python.framework.smart_cond.smart_cond"


@case("python-bool-true", pred=True)
@case("python-bool-false", pred=False)
def python_pred(ctx, pred):
    smart_cond = ctx.require(NAME)
    calls = []

    def yes():
        calls.append("true")
        return 1

    def no():
        calls.append("false")
        return 0

    out = ctx.measure(smart_cond, pred, yes, no, warm=False)
    ctx.check(out == int(pred), f"smart_cond({pred}) returned {out}", "other")
    ctx.check(calls == ["true" if pred else "false"], f"branches called: {calls}", "other")


@case("constant-tensor-pred")
def constant_pred(ctx):
    import tensorflow as tf

    smart_cond = ctx.require(NAME)
    x = ctx.put(np.arange(4, dtype="float32"))
    out = ctx.measure(smart_cond, tf.constant(False), lambda: x * 2.0, lambda: x - 1.0)
    ctx.check_equal(out, np.arange(4, dtype="float32") - 1.0)


@case("dynamic-pred-graph", value=3.0)
@case("dynamic-pred-graph-false", value=-3.0)
def dynamic_pred(ctx, value):
    import tensorflow as tf

    smart_cond = ctx.require(NAME)

    @tf.function
    def fn(v):
        return smart_cond(v > 0, lambda: v * 10.0, lambda: v - 1.0)

    out = ctx.measure(fn, ctx.put(np.array(value, dtype="float32")))
    ctx.check_close(out, value * 10.0 if value > 0 else value - 1.0, dtype="float32")


@case("dynamic-pred-xla")
def dynamic_xla(ctx):
    smart_cond = ctx.require(NAME)
    fn = ctx.compiled(lambda v: smart_cond(v[0] > 0, lambda: v * 2.0, lambda: -v))
    x = np.array([1.0, -2.0, 3.0], dtype="float32")
    out = ctx.measure(fn, ctx.put(x))
    ctx.check_close(out, x * 2.0, dtype="float32")
