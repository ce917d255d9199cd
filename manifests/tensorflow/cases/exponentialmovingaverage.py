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
