"""tf.sequence_mask: with and without maxlen, dtype option, 2-D lengths, graph/XLA."""

import numpy as np
from tfhelp import by_mode

from portbench_runner.api import case


def _mask(lengths, maxlen):
    return np.arange(maxlen) < np.asarray(lengths)[..., None]


@case("int32-maxlen", lengths=[1, 3, 0, 5], maxlen=6)
@case("int64-no-maxlen", lengths=[2, 7, 4], maxlen=None, ldtype="int64")
@case("float32-dtype", lengths=[1, 3, 2], maxlen=4, dtype="float32")
@case("int32-2d-lengths", lengths=[[1, 2], [3, 0]], maxlen=4)
@case("int32-graph", lengths=[4, 1], maxlen=5, mode="graph")
@case("int32-xla", lengths=[4, 1, 2], maxlen=5, mode="xla")
@case("int32-empty", lengths=[], maxlen=3)
def mask_values(ctx, lengths, maxlen, dtype="bool", ldtype="int32", mode="eager"):
    import tensorflow as tf

    lens = np.array(lengths, dtype=ldtype).reshape(np.shape(lengths))
    fn = by_mode(ctx, lambda t: tf.sequence_mask(t, maxlen, dtype=getattr(tf, dtype)), mode)
    out = ctx.measure(fn, ctx.put(lens))
    expected = _mask(lens, maxlen if maxlen is not None else int(lens.max()))
    ctx.check_equal(out, expected.astype(dtype))


@case("large-batch")
def mask_large(ctx):
    import tensorflow as tf

    lens = ctx.rng.integers(0, 1000, size=(1000,)).astype("int32")
    out = ctx.measure(tf.sequence_mask, ctx.put(lens), 1000)
    ctx.check_equal(out, _mask(lens, 1000))
