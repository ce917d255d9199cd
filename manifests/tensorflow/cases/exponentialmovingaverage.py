"""tf.train.ExponentialMovingAverage: shadow = decay*shadow + (1-decay)*value; num_updates; zero_debias."""

import numpy as np
from tfhelp import MODES, REAL_FLOATS, v1_graph, v1_session

from portbench_runner.api import case, sweep


@case("float32-eager", dtype="float32", decay=0.9)
@case("float64-eager", dtype="float64", decay=0.99)
@case("float32-large", dtype="float32", decay=0.5, n=1_000_000)
def eager(ctx, dtype, decay, n=8):
    import tensorflow as tf

    first = ctx.rng.standard_normal(n).astype(dtype)
    second = ctx.rng.standard_normal(n).astype(dtype)
    var = tf.Variable(first)
    ema = tf.train.ExponentialMovingAverage(decay)
    ema.apply([var])  # creates the shadow, initialized to the variable, then updates it
    var.assign(second)
    ctx.measure(ema.apply, [var], warm=False)
    # decay is held as a float32 tensor and cast to the variable's dtype.
    decay = float(np.float32(decay))
    shadow = first.astype("float64")
    shadow = decay * shadow + (1 - decay) * first
    shadow = decay * shadow + (1 - decay) * second
    ctx.check_close(ema.average(var), shadow, dtype=dtype)


@case("num-updates-caps-decay")
def num_updates(ctx):
    import tensorflow as tf

    var = tf.Variable(np.array([0.0, 10.0], dtype="float32"))
    step = tf.Variable(3, dtype=tf.int64)
    ema = tf.train.ExponentialMovingAverage(0.999, num_updates=step)
    ema.apply([var])
    var.assign([4.0, 2.0])
    ctx.measure(ema.apply, [var], warm=False)
    decay = float(np.float32(min(0.999, (1 + 3) / (10 + 3))))
    expected = decay * np.array([0.0, 10.0]) + (1 - decay) * np.array([4.0, 2.0])
    ctx.check_close(ema.average(var), expected, dtype="float32")


@case("zero-debias-graph")
def zero_debias(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    decay = 0.8
    with v1_graph(ctx) as graph:
        var = v1.Variable(np.array([2.0, -4.0], dtype="float32"))
        ema = tf.train.ExponentialMovingAverage(decay, zero_debias=True)
        update = ema.apply([var])
        average = ema.average(var)
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        ctx.measure(sess.run, update, warm=False)
        out = sess.run(average)
    # With zero debiasing the shadow starts at zero and is divided by (1 - decay^t): one step
    # of a constant value gives that value back.
    ctx.check_close(out, np.array([2.0, -4.0]), dtype="float32")


@case("in-tf-function")
def in_function(ctx):
    import tensorflow as tf

    var = tf.Variable(np.array([1.0], dtype="float32"))
    ema = tf.train.ExponentialMovingAverage(0.5)
    ema.apply([var])

    @tf.function
    def step(value):
        var.assign(value)
        ema.apply([var])
        return ema.average(var).read_value()

    out = ctx.measure(step, ctx.put(np.array([3.0], dtype="float32")), warm=False)
    ctx.check_close(out, np.array([2.0]), dtype="float32")


# Every float dtype a moving average keeps, its update run eagerly, in a tf.function and
# under XLA (the shadow is created eagerly first, equal to the variable): shadow =
# shadow - (shadow - value) * (1 - decay), decay a float32 cast to the dtype. New names.
@sweep("{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def ema_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import by_mode, check_dtype, check_swept, draw, placed

    decay = 0.75  # exact in every float dtype
    first, first_exact = placed(ctx, draw(ctx, (32,), dtype), dtype)
    second, second_exact = placed(ctx, draw(ctx, (32,), dtype), dtype)
    var = tf.Variable(first)
    ema = tf.train.ExponentialMovingAverage(decay)
    ema.apply([var])

    def step(value):
        var.assign(value)
        ema.apply([var])
        return ema.average(var).read_value()

    out = ctx.measure(by_mode(ctx, step, mode), second, warm=False)
    check_dtype(ctx, out, dtype)
    expected = first_exact - (first_exact - second_exact) * (1 - decay)
    check_swept(ctx, out, expected, scale=2.0)


# The study's other kinds of paths: the documented error for an integer variable (exact
# type and message), the full grid of zero_debias x num_updates (each against the update
# rule), and checkpoint and restore of the shadow variables (saved with Saver, restored
# into the variables through variables_to_restore). New names; the cases above keep their
# ids.
@case("error-integer-variable")
def ema_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    v = tf.Variable([1, 2])
    check_raises(
        ctx,
        lambda: tf.train.ExponentialMovingAverage(0.9).apply([v]),
        TypeError,
        r"The variables must be half, float, or double",
    )


@sweep(
    "flags-{debias}-{updates}-sweep",
    debias=["zero-debias", "biased"],
    updates=["num-updates", "fixed-decay"],
)
def ema_flags(ctx, debias, updates):
    import tensorflow as tf
    from tfhelp import v1_graph, v1_session

    v1 = tf.compat.v1
    decay, values = 0.9, [1.0, 3.0, -2.0]
    with v1_graph(ctx) as graph:
        value = v1.placeholder(tf.float32, ())
        # A tensor, not a Variable: zero_debias applies only to averages of tensors (a
        # Variable's average starts at its value and needs no debiasing).
        tensor = tf.identity(value)
        step = v1.Variable(0, dtype=tf.int64, trainable=False) if updates == "num-updates" else None
        ema = tf.train.ExponentialMovingAverage(
            decay, num_updates=step, zero_debias=debias == "zero-debias"
        )
        update = ema.apply([tensor])
        bump = step.assign_add(1) if step is not None else tf.no_op()
        average = ema.average(tensor)
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        for v in values[:-1]:
            sess.run(update, {value: v})
            sess.run(bump)
        ctx.measure(sess.run, update, {value: values[-1]}, warm=False)
        out = sess.run(average)
    # The reference: the shadow of a tensor starts at 0 and moves by (1 - d) toward each
    # value; with zero_debias a biased copy (from 0) moves so, and the shadow is that copy
    # over 1 - d**t at step t. num_updates n caps d at (1 + n) / (10 + n).
    shadow, biased = 0.0, 0.0
    for n, v in enumerate(values):
        d = min(decay, (1 + n) / (10 + n)) if updates == "num-updates" else decay
        d = float(np.float32(d))
        if debias == "zero-debias":
            biased = d * biased + (1 - d) * v
            shadow = biased / (1 - d ** (n + 1))
        else:
            shadow = d * shadow + (1 - d) * v
    ctx.check_close(out, shadow, rtol=1e-5, atol=1e-6)


@case("checkpoint-shadow-restore")
def ema_checkpoint(ctx):
    import os
    import tempfile

    import tensorflow as tf
    from tfhelp import v1_graph, v1_session

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        var = v1.Variable(0.0, name="weight")
        ema = tf.train.ExponentialMovingAverage(0.5)
        update = ema.apply([var])
        assign = var.assign(4.0)
        init = v1.global_variables_initializer()
        saver = v1.train.Saver()
    with v1_session(graph) as sess, tempfile.TemporaryDirectory() as folder:
        sess.run(init)
        sess.run(assign)
        sess.run(update)  # shadow = 0.5 * 0 + 0.5 * 4 = 2
        path = saver.save(sess, os.path.join(folder, "model"))
        shadow = sess.run(ema.average(var))
        with v1_graph(ctx) as fresh:
            restored = v1.Variable(0.0, name="weight")
            loader = v1.train.Saver(tf.train.ExponentialMovingAverage(0.5).variables_to_restore())
        with v1_session(fresh) as other:
            out = ctx.measure(
                lambda: (loader.restore(other, path), other.run(restored))[1], warm=False
            )
    ctx.check_close(shadow, 2.0, rtol=1e-6, atol=1e-6, what="the shadow")
    ctx.check_close(out, 2.0, rtol=1e-6, atol=1e-6, what="the variable restored from its shadow")
