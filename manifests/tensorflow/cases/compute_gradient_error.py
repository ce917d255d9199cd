"""tf.compat.v1.test.compute_gradient_error: numeric vs symbolic Jacobians in a TF1 Session.

Correct gradients give an error near zero; a deliberately wrong custom gradient gives a large one.
"""

import numpy as np
from tfhelp import COMPLEXES, REAL_FLOATS, v1_graph, v1_session

from portbench_runner.api import case, sweep


def _error(ctx, make_y, x_value, limit=None, expect_large=False):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        x = tf.constant(x_value)
        y = make_y(x)
    with v1_session(graph) as sess, sess.as_default():
        call = lambda: v1.test.compute_gradient_error(x, list(x_value.shape), y, y.shape.as_list())  # noqa: E731
        with graph.as_default():
            err = ctx.measure(call)
    if expect_large:
        ctx.check(err > 0.5, f"a wrong gradient gave error {err}")
    else:
        ctx.check(err < limit, f"gradient error {err} above {limit}")


@case("square-float64")
def square(ctx):
    _error(ctx, lambda x: x * x, ctx.rng.standard_normal((3, 4)), limit=1e-6)


@case("tanh-float32")
def tanh(ctx):
    import tensorflow as tf

    _error(ctx, tf.tanh, ctx.rng.standard_normal(5).astype("float32"), limit=5e-3)


@case("matmul-float64")
def matmul(ctx):
    import tensorflow as tf

    w = ctx.rng.standard_normal((4, 2))
    _error(ctx, lambda x: tf.matmul(x, tf.constant(w)), ctx.rng.standard_normal((3, 4)), limit=1e-6)


@case("wrong-gradient-detected")
def wrong(ctx):
    import tensorflow as tf

    @tf.custom_gradient
    def bad_square(x):
        return x * x, lambda dy: dy * 3.0  # the true gradient is 2x

    _error(ctx, bad_square, ctx.rng.uniform(1.0, 2.0, size=(4,)), expect_large=True)


#: Central-difference step per dtype: a power of two (exact in the dtype) large enough
#: that the low-precision floats resolve it; for a quadratic the central difference is
#: exact, so the error is the dtype's rounding only.
DELTAS = {"float16": 2**-5, "bfloat16": 2**-3}
LIMITS = {"float16": 2e-2, "bfloat16": 0.1, "float32": 1e-3, "float64": 1e-8}


# Every dtype the checker accepts (the real floats and complex), with a function of
# several inputs (y = x * x * c + x, elementwise, c constant); a float64 reference is not
# needed: the Jacobian error itself is the result. New names, so the cases above keep ids.
@sweep("quadratic-{dtype}-sweep", dtype=REAL_FLOATS + COMPLEXES)
def dtypes(ctx, dtype):
    import tensorflow as tf

    v1 = tf.compat.v1
    host = "float32" if dtype == "bfloat16" else dtype
    x_np = (np.arange(1, 7).reshape(2, 3) / 4).astype(host)  # quarters: exact everywhere
    c_np = np.array([0.5, 1.0, 2.0]).astype(host)
    if dtype.startswith("complex"):
        x_np = x_np + 0.25j
    with v1_graph(ctx) as graph:
        x = (
            tf.cast(tf.constant(x_np), getattr(tf, dtype))
            if dtype == "bfloat16"
            else tf.constant(x_np)
        )
        c = tf.cast(tf.constant(c_np), x.dtype)
        y = x * x * c + x
    delta = DELTAS.get(dtype, 1e-3)
    with v1_session(graph) as sess, sess.as_default(), graph.as_default():
        err = ctx.measure(
            v1.test.compute_gradient_error, x, [2, 3], y, [2, 3], x_init_value=x_np, delta=delta
        )
    limit = LIMITS[dtype.replace("complex64", "float32").replace("complex128", "float64")]
    ctx.check(float(err) < limit, f"{dtype} gradient error {err} above {limit}")


# The checker reads the gradient from the graph: a second-order (nested) gradient, in
# float64, is a function like any other.
@case("second-derivative-float64")
def second(ctx):
    import tensorflow as tf

    def dcube(x):
        return tf.gradients(x * x * x, x)[0]  # 3 x^2

    _error(ctx, dcube, ctx.rng.uniform(0.5, 2.0, size=(5,)), limit=1e-6)


# The study's other kind of path here: the full grid of the checker's own flags (delta:
# 1e-3, 1e-5 x x_init_value: taken from x, given), on a float64 cubic whose Jacobian the
# numeric one matches to its step. It takes what it is given without checking, so it has no
# documented error path. New names; the cases above keep their ids.
@sweep("flags-delta-{delta}-init-{init}-sweep", delta=["1e-3", "1e-5"], init=["from-x", "given"])
def gradient_error_flags(ctx, delta, init):
    import tensorflow as tf

    v1 = tf.compat.v1
    x_value = np.linspace(-1.5, 1.5, 6)
    with v1_graph(ctx) as graph:
        x = tf.constant(x_value)
        y = x**3
    kw = {"delta": float(delta)}
    if init == "given":
        kw["x_init_value"] = x_value * 0.5
    with v1_session(graph) as sess, sess.as_default(), graph.as_default():
        err = ctx.measure(lambda: v1.test.compute_gradient_error(x, [6], y, [6], **kw))
    # Central differences of x**3 err by delta**2 (times 1, the third derivative's sixth
    # times 6); rounding adds about 1e-16 / delta.
    limit = 2 * float(delta) ** 2 + 1e-14 / float(delta)
    ctx.check(err < limit, f"gradient error {err} above {limit:g} with {kw}", "precision")
