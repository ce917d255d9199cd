"""tf.compat.v1.train.AdadeltaOptimizer: one and two steps match Adadelta's update rule in NumPy.

accum = rho*accum + (1-rho)*g^2; delta = sqrt(accum_upd+eps)/sqrt(accum+eps)*g;
accum_upd = rho*accum_upd + (1-rho)*delta^2; var -= lr*delta (accumulators start at zero).
"""

import numpy as np
from tfhelp import REAL_FLOATS, v1_graph, v1_session

from portbench_runner.api import case, sweep


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


def _in_dtype(ctx, value, dtype):
    """A float32 hyperparameter as the variable's dtype holds it (the optimizer casts)."""
    from tfhelp import bf16_round

    value = np.float32(value)
    if dtype == "bfloat16":
        return float(bf16_round(ctx, np.array([value]))[0])
    return float(np.asarray(value).astype(dtype))


# Every float dtype the Adadelta kernels take on the CPU, on each path TF1 and TF2 code
# runs the optimizer: a TF1 Session (ApplyAdadelta on a graph variable), eagerly, in a
# tf.function and under XLA (ResourceApplyAdadelta); two steps of given gradients, the
# first creating the slots eagerly. epsilon is large so float16's step is many ulps wide.
@sweep("{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=["session", "eager", "graph", "xla"])
def adadelta_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import by_mode, check_dtype, check_swept, draw, placed

    v1 = tf.compat.v1
    lr, rho, eps = 1.0, 0.9, 0.01
    start, start_exact = placed(ctx, draw(ctx, (16,), dtype, -1, 1), dtype)
    g1, g1_exact = placed(ctx, draw(ctx, (16,), dtype, -1, 1), dtype)
    g2, g2_exact = placed(ctx, draw(ctx, (16,), dtype, -1, 1), dtype)
    if mode == "session":
        # Host copies first: to_numpy of a bfloat16 tensor casts, which a graph scope captures.
        start_host, g1_host, g2_host = (ctx.to_numpy(t) for t in (start, g1, g2))
        with v1_graph(ctx) as graph:
            # Through float32 and a cast: a bfloat16 constant cannot be made in a graph
            # from NumPy values (the conversion runs eagerly).
            var = v1.Variable(tf.cast(tf.constant(start_host), getattr(tf, dtype)))
            grad = v1.placeholder(getattr(tf, dtype), [16])
            opt = v1.train.AdadeltaOptimizer(lr, rho=rho, epsilon=eps)
            train = opt.apply_gradients([(grad, var)])
            init = v1.global_variables_initializer()
        with v1_session(graph) as sess:
            sess.run(init)
            host = getattr(tf, dtype).as_numpy_dtype  # feeds in the placeholder's dtype
            sess.run(train, {grad: g1_host.astype(host)})
            ctx.measure(sess.run, train, {grad: g2_host.astype(host)}, warm=False)
            out = sess.run(var)
        out = tf.constant(out)
    else:
        var = tf.Variable(start)
        opt = v1.train.AdadeltaOptimizer(lr, rho=rho, epsilon=eps)
        opt.apply_gradients([(g1, var)])  # creates the slots outside any tf.function

        def step(g):
            opt.apply_gradients([(g, var)])
            return var.read_value()

        out = ctx.measure(by_mode(ctx, step, mode), g2, warm=False)
    check_dtype(ctx, out, dtype)
    hyper = [_in_dtype(ctx, h, dtype) for h in (lr, rho, eps)]
    # _adadelta rounds through float32 again, which keeps these (already coarser) values.
    expected = _adadelta(start_exact, [g1_exact, g2_exact], *hyper)
    check_swept(ctx, out, expected, scale=4.0)


# The study's other kinds of paths: the documented error for a step with no gradients
# (exact type and message), the full grid of rho x epsilon (each against the update rule),
# and checkpoint and restore of the optimizer's state (tf.compat.v1.train.Saver saves the
# variable and its two accumulator slots; after a restore the next step matches an
# uninterrupted run). New names; the cases above keep their ids.
@case("error-no-gradients")
def adadelta_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    var = tf.Variable(1.0)
    opt = tf.compat.v1.train.AdadeltaOptimizer(1.0)
    check_raises(
        ctx,
        lambda: opt.apply_gradients([(None, var)]),
        ValueError,
        r"No gradients provided for any variable",
    )


@sweep("flags-rho-{rho}-epsilon-{eps}-sweep", rho=["0.95", "0.5"], eps=["1e-08", "0.01"])
def adadelta_flags(ctx, rho, eps):
    import tensorflow as tf

    v1 = tf.compat.v1
    start = ctx.rng.standard_normal(16).astype("float32")
    target = ctx.rng.standard_normal(16).astype("float32")
    with v1_graph(ctx) as graph:
        var = v1.Variable(start)
        loss = 0.5 * tf.reduce_sum(tf.square(var - target))
        train = v1.train.AdadeltaOptimizer(1.0, rho=float(rho), epsilon=float(eps)).minimize(loss)
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        grads = [sess.run(var).astype("float64") - target]
        sess.run(train)
        grads.append(sess.run(var).astype("float64") - target)
        ctx.measure(sess.run, train, warm=False)
        out = sess.run(var)
    ctx.check_close(out, _adadelta(start, grads, 1.0, float(rho), float(eps)), rtol=1e-5, atol=1e-5)


@case("checkpoint-slots-restore")
def adadelta_checkpoint(ctx):
    import os
    import tempfile

    import tensorflow as tf

    v1 = tf.compat.v1
    start = ctx.rng.standard_normal(8).astype("float32")
    target = ctx.rng.standard_normal(8).astype("float32")
    with v1_graph(ctx) as graph:
        var = v1.Variable(start)
        loss = 0.5 * tf.reduce_sum(tf.square(var - target))
        opt = v1.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6)
        train = opt.minimize(loss)
        init = v1.global_variables_initializer()
        saver = v1.train.Saver()
    with v1_session(graph) as sess, tempfile.TemporaryDirectory() as folder:
        sess.run(init)
        sess.run(train)
        path = saver.save(sess, os.path.join(folder, "model"))
        sess.run(train)
        uninterrupted = sess.run(var)
        sess.run(init)  # forget everything, slots included

        def restore_and_step():
            saver.restore(sess, path)
            sess.run(train)
            return sess.run(var)

        out = ctx.measure(restore_and_step, warm=False)
        slots = sorted(opt.get_slot_names())
    ctx.check(slots == ["accum", "accum_update"], f"slots {slots}", "other")
    ctx.check_equal(out, uninterrupted)
