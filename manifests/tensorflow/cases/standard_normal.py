"""tf.experimental.numpy.random.standard_normal: shapes, float64 default, moments, seeding.

The study's only timer wrapped an assignment in setUp; these cases time the sampler itself.
"""

import numpy as np
from tfhelp import MODES, by_mode

from portbench_runner.api import case, sweep

NAME = "tensorflow.experimental.numpy.random.standard_normal"


@case("moments-large")
def moments(ctx):
    ctx.not_comparable("draws from the device's random generator")
    sample = ctx.require(NAME)
    out = ctx.measure(sample, size=(1000, 1000))
    s = ctx.to_numpy(out).astype("float64")
    # n = 1e6: standard errors 1e-3 (mean) and 7e-4 (std); allow about 5.
    ctx.check(abs(s.mean()) < 5e-3 and abs(s.std() - 1.0) < 4e-3, f"mean {s.mean()}, std {s.std()}")
    ctx.check(abs(((s - s.mean()) ** 3).mean()) < 0.02, "sample skewness is not near 0")


@case("shape-and-default-dtype", size=(3, 4))
@case("scalar-when-size-none", size=None)
@case("empty", size=(0, 5))
def shapes(ctx, size):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf

    sample = ctx.require(NAME)
    out = ctx.measure(sample, size=size)
    expect = [] if size is None else list(size)
    ctx.check(out.shape.as_list() == expect, f"shape {out.shape}", "other")
    # TF-NumPy's default float is float64, as NumPy's, unless prefer_float32 was enabled.
    ctx.check(out.dtype in (tf.float64, tf.float32), f"dtype {out.dtype}", "type")


@case("seed-reproducible")
def seeded(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import tensorflow as tf

    sample = ctx.require(NAME)
    tnp = tf.experimental.numpy

    def draw():
        tnp.random.seed(123)
        return sample(size=(64,))

    first = ctx.to_numpy(ctx.measure(draw))
    ctx.check_equal(first, ctx.to_numpy(draw()))


# The sampler eagerly, inside a tf.function and under XLA (each seeded first), with the size
# forms it takes (None: a scalar, an int, a tuple, an empty shape): shape, dtype (float64 by
# default) and, for the large forms, moments of 20000 draws (standard errors 0.007 and
# 0.005; the bounds allow about 5). New names, so the cases above keep their ids.
@sweep("{size}-{mode}-sweep", size=["none", "int", "tuple", "empty"], mode=MODES)
def modes_and_sizes(ctx, size, mode):
    import tensorflow as tf

    ctx.not_comparable("draws from the device's random generator")
    sample = ctx.require(NAME)
    arg = {"none": None, "int": 20000, "tuple": (100, 200), "empty": (0, 4)}[size]
    expect = {"none": [], "int": [20000], "tuple": [100, 200], "empty": [0, 4]}[size]
    tf.experimental.numpy.random.seed(11)
    out = ctx.measure(by_mode(ctx, lambda: sample(size=arg), mode))
    ctx.check(out.shape.as_list() == expect, f"shape {out.shape}, not {expect}", "other")
    ctx.check(out.dtype in (tf.float64, tf.float32), f"dtype {out.dtype}", "type")
    s = ctx.to_numpy(out).astype("float64")
    ctx.check(bool(np.all(np.isfinite(s))), "a draw is not finite")
    if s.size >= 20000:
        ctx.check(
            abs(s.mean()) < 0.04 and abs(s.std() - 1) < 0.03, f"mean {s.mean()}, std {s.std()}"
        )


# The study's other kind of path here: the documented errors for bad sizes (a negative one,
# a float one: exact type and message). tnp.random draws from TensorFlow's global generator,
# whose numbers TensorFlow does not promise across runs of different programs, so there are
# no golden values. New names; the cases above keep their ids.
@sweep("error-{form}", form=["negative-size", "float-size"])
def standard_normal_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "negative-size":
        check_raises(
            ctx,
            lambda: tf.experimental.numpy.random.standard_normal((-1,)),
            tf.errors.InvalidArgumentError,
            r"Dimension -1 must be >= 0",
        )
    else:
        check_raises(
            ctx,
            lambda: tf.experimental.numpy.random.standard_normal(2.5),
            tf.errors.InvalidArgumentError,
            r"Value for attr 'T' of float is not in the list of allowed values: int32, int64",
        )
