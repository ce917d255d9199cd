"""tensorflow.python.framework.smart_cond.smart_cond: static predicates call one branch, dynamic ones build tf.cond."""

import numpy as np
from tfhelp import ALL_DTYPES, GRAD2_FLOATS, MODES, by_mode

from portbench_runner.api import case, sweep

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


# Branch results of every dtype, with a predicate known at trace time (Python bool: one
# branch is called, no cond op) and one known only at run time (a tensor: tf.cond), in each
# mode; the run-time predicate is False, so the false branch's value must come back.
# New names, so the cases above keep their ids.
@sweep("{dtype}-{pred}-{mode}-sweep", dtype=ALL_DTYPES, pred=["static", "dynamic"], mode=MODES)
def branch_dtypes(ctx, dtype, pred, mode):
    import tensorflow as tf
    from tfhelp import draw, placed

    smart_cond = ctx.require(NAME)
    x, ex = placed(ctx, draw(ctx, (7,), dtype, -9, 9), dtype)
    flag = ctx.put(np.array(-1.0, dtype="float32"))

    def fn(t, f):
        p = False if pred == "static" else f > 0
        return smart_cond(p, lambda: tf.reverse(t, [0]), lambda: tf.identity(t[1:]))

    out = ctx.measure(by_mode(ctx, fn, mode), x, flag)
    ctx.check_equal(out, ex[1:])


# Predicate forms (a NumPy bool, a constant tensor, a tensor computed at run time) and the
# gradient through each branch of a run-time predicate, in every mode.
@sweep(
    "{form}-{mode}-sweep",
    form=["numpy-bool", "constant-tensor", "runtime-tensor", "grad-true", "grad-false"],
    mode=MODES,
)
def pred_forms(ctx, form, mode):
    import tensorflow as tf

    smart_cond = ctx.require(NAME)
    x_np = np.array([1.0, -2.0, 4.0], dtype="float32")
    x = ctx.put(x_np)

    def fn(t):
        if form.startswith("grad"):
            with tf.GradientTape() as tape:
                tape.watch(t)
                p = tf.reduce_sum(t) > (0.0 if form == "grad-true" else 100.0)
                y = tf.reduce_sum(smart_cond(p, lambda: t * t, lambda: t * 5.0))
            return tape.gradient(y, t)
        p = {
            "numpy-bool": np.bool_(True),
            "constant-tensor": tf.constant(True),
            "runtime-tensor": t[0] > 0,
        }[form]
        return smart_cond(p, lambda: t * 2.0, lambda: t - 1.0)

    out = ctx.measure(by_mode(ctx, fn, mode), x)
    expected = {"grad-true": 2 * x_np, "grad-false": np.full(3, 5.0)}.get(form, x_np * 2.0)
    ctx.check_close(out, expected.astype("float64"), dtype="float32")


# The study's other kinds of paths: the documented errors for branches that are not
# callable (exact type and message), second derivatives through a dynamic smart_cond
# (nested GradientTapes: x**3 where x > 0, -x**2 elsewhere, so 6x or -2) in float32 and
# float64, and tf.vectorized_map of a smart_cond on a static predicate, eager, in a
# tf.function and under XLA. New names; the cases above keep their ids.
@sweep("error-{form}", form=["true-fn-not-callable", "false-fn-not-callable"])
def smart_cond_errors(ctx, form):
    from tfhelp import check_raises

    smart_cond = ctx.require(NAME)
    if form == "true-fn-not-callable":
        check_raises(
            ctx,
            lambda: smart_cond(True, 1, lambda: 2),
            TypeError,
            r"Argument `true_fn` must be callable\. Received 1",
        )
    else:
        check_raises(
            ctx,
            lambda: smart_cond(True, lambda: 1, 2),
            TypeError,
            r"Argument `false_fn` must be callable\. Received 2",
        )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def smart_cond_grad2(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad2

    smart_cond = ctx.require(NAME)

    def f(t):
        # A per-element predicate needs a branch per element: map the scalar smart_cond.
        return tf.map_fn(lambda v: smart_cond(v > 0, lambda: v**3, lambda: -(v**2)), t)

    swept_grad2(ctx, f, lambda x: np.where(x > 0, 6 * x, -2.0), dtype, mode, shape=(16,))


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def smart_cond_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    smart_cond = ctx.require(NAME)
    swept_vectorized_map(
        ctx, lambda t: smart_cond(True, lambda: tf.sin(t), lambda: t), np.sin, "float32", mode
    )
