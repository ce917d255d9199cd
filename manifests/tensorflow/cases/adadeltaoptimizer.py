"""tf.compat.v1.train.AdadeltaOptimizer: one and two steps match Adadelta's update rule in NumPy.

accum = rho*accum + (1-rho)*g^2; delta = sqrt(accum_upd+eps)/sqrt(accum+eps)*g;
accum_upd = rho*accum_upd + (1-rho)*delta^2; var -= lr*delta (accumulators start at zero).
"""

import numpy as np
from tfhelp import v1_graph, v1_session

from portbench_runner.api import case


def _adadelta(var, grads, lr, rho, eps):
    # The v1 optimizer converts lr, rho and epsilon to float32 tensors, then casts them to the
    # variable's dtype: a float64 variable is updated with float32-rounded hyperparameters.
    lr, rho, eps = (float(np.float32(h)) for h in (lr, rho, eps))
    var = var.astype("float64").copy()
    accum = np.zeros_like(var)
    accum_upd = np.zeros_like(var)
    for g in grads:
        accum = rho * accum + (1 - rho) * g * g
        delta = np.sqrt(accum_upd + eps) / np.sqrt(accum + eps) * g
        accum_upd = rho * accum_upd + (1 - rho) * delta * delta
        var = var - lr * delta
    return var


@case("float32-one-step", dtype="float32", steps=1)
@case("float64-two-steps", dtype="float64", steps=2)
@case("float32-large", dtype="float32", steps=1, n=1_000_000)
def graph_steps(ctx, dtype, steps, n=64):
    import tensorflow as tf

    v1 = tf.compat.v1
    lr, rho, eps = 1.0, 0.9, 1e-6
    start = ctx.rng.standard_normal(n).astype(dtype)
    target = ctx.rng.standard_normal(n).astype(dtype)
    with v1_graph(ctx) as graph:
        var = v1.Variable(start)
        loss = 0.5 * tf.reduce_sum(tf.square(var - target))  # gradient: var - target
        train = v1.train.AdadeltaOptimizer(lr, rho=rho, epsilon=eps).minimize(loss)
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        grads = []
        for _ in range(steps - 1):
            grads.append(sess.run(var).astype("float64") - target)
            sess.run(train)
        grads.append(sess.run(var).astype("float64") - target)
        ctx.measure(sess.run, train, warm=False)
        out = sess.run(var)
    expected = _adadelta(start, grads, lr, rho, eps)
    tol = 1e-5 if dtype == "float32" else 1e-10
    ctx.check_close(out, expected, rtol=tol, atol=tol)


@case("eager-apply-gradients")
def eager(ctx):
    import tensorflow as tf

    lr, rho, eps = 0.5, 0.95, 1e-6
    start = np.array([1.0, -2.0, 3.0], dtype="float32")
    grad = np.array([0.1, 0.2, -0.3], dtype="float32")
    var = tf.Variable(start)
    opt = tf.compat.v1.train.AdadeltaOptimizer(lr, rho=rho, epsilon=eps)
    ctx.measure(opt.apply_gradients, [(ctx.put(grad), var)], warm=False)
    ctx.check_close(var, _adadelta(start, [grad.astype("float64")], lr, rho, eps), dtype="float32")


@case("graph-tf-function")
def in_function(ctx):
    import tensorflow as tf

    lr, rho, eps = 1.0, 0.9, 1e-6
    start = np.array([[0.5, -0.5]], dtype="float32")
    var = tf.Variable(start)
    opt = tf.compat.v1.train.AdadeltaOptimizer(lr, rho=rho, epsilon=eps)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(var * var)
        opt.apply_gradients([(tape.gradient(loss, var), var)])

    ctx.measure(step, warm=False)
    ctx.check_close(
        var, _adadelta(start, [2.0 * start.astype("float64")], lr, rho, eps), dtype="float32"
    )


@case("slots-created")
def slots(ctx):
    import tensorflow as tf

    var = tf.Variable(np.zeros(4, dtype="float32"))
    opt = tf.compat.v1.train.AdadeltaOptimizer(1.0)
    ctx.measure(opt.apply_gradients, [(ctx.put(np.ones(4, dtype="float32")), var)], warm=False)
    names = sorted(opt.get_slot_names())
    ctx.check(names == ["accum", "accum_update"], f"slot names {names}", "other")
    ctx.check_close(
        opt.get_slot(var, "accum"), np.full(4, 0.05), dtype="float32", what="accum slot"
    )
