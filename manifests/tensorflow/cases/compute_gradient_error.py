"""tf.compat.v1.test.compute_gradient_error: numeric vs symbolic Jacobians in a TF1 Session.

Correct gradients give an error near zero; a deliberately wrong custom gradient gives a large one.
"""

from tfhelp import v1_graph, v1_session

from portbench_runner.api import case


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
