"""tf.sequence_mask: with and without maxlen, dtype option, 2-D lengths, graph/XLA."""

import numpy as np
from tfhelp import ALL_DTYPES, MODES, SIGNED_INTS, UNSIGNED_INTS, by_mode

from portbench_runner.api import case, sweep


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


# Every integer dtype of the lengths (maxlen a Python int, as most callers pass it), and
# every integer dtype of a maxlen tensor (the mask's positions are a tf.range in maxlen's
# dtype, so this is the form that needs a Range kernel of that dtype), eager, in a
# tf.function and under XLA; new names, so the cases above keep their ids. The Range op
# declares no uint8 at all (a documented refusal, left out); it declares the other narrow
# and unsigned widths, which the CPU has no kernel for (findings, kept failing).
@sweep("lengths-{ldtype}-{mode}-sweep", ldtype=SIGNED_INTS + UNSIGNED_INTS, mode=MODES)
@sweep(
    "maxlen-{ldtype}-{mode}-sweep",
    ldtype=SIGNED_INTS + UNSIGNED_INTS,
    mode=MODES,
    maxlen_tensor=True,
    exclude=[{"ldtype": "uint8"}],
)
def mask_length_dtypes(ctx, ldtype, mode, maxlen_tensor=False):
    import tensorflow as tf

    lens = ctx.rng.integers(0, 9, size=(4, 5)).astype(ldtype)
    if maxlen_tensor:
        fn = by_mode(ctx, tf.sequence_mask, mode)
        out = ctx.measure(fn, ctx.put(lens), ctx.put(np.array(7, dtype=ldtype)))
    else:
        out = ctx.measure(by_mode(ctx, lambda t: tf.sequence_mask(t, 7), mode), ctx.put(lens))
    ctx.check_equal(out, _mask(lens.astype("int64"), 7))


# Every output dtype the mask can be cast to (1 inside the length, 0 past it).
@sweep("out-{dtype}-{mode}-sweep", dtype=ALL_DTYPES, mode=MODES)
def mask_out_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype

    lens = ctx.rng.integers(0, 6, size=(9,)).astype("int32")
    fn = by_mode(ctx, lambda t: tf.sequence_mask(t, 6, dtype=getattr(tf, dtype)), mode)
    out = ctx.measure(fn, ctx.put(lens))
    check_dtype(ctx, out, dtype)
    ctx.check_equal(out, _mask(lens, 6).astype("float64" if dtype == "bfloat16" else dtype))


# The study's other kinds of paths: the documented errors for a bad maxlen (a vector, a
# negative one: exact type and message), the full grid of maxlen (absent, given) x output
# dtype (bool, float32, int32) x lengths rank (1, 2), and tf.vectorized_map of sequence_mask
# over a batch of length vectors, eager, in a tf.function and under XLA. New names; the
# cases above keep their ids.
@sweep("error-{form}", form=["vector-maxlen", "negative-maxlen"])
def mask_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "vector-maxlen":
        check_raises(
            ctx,
            lambda: tf.sequence_mask([1, 2], maxlen=[3, 4]),
            ValueError,
            r"Argument `maxlen` must be scalar for sequence_mask",
        )
    else:
        check_raises(
            ctx,
            lambda: tf.sequence_mask([1, 2], maxlen=-1),
            tf.errors.InvalidArgumentError,
            r"Requires start <= limit when delta > 0: 0/-1",
        )


@sweep(
    "flags-maxlen-{maxlen}-{dtype}-rank{rank}-sweep",
    maxlen=["absent", "given"],
    dtype=["bool", "float32", "int32"],
    rank=[1, 2],
)
def mask_flags(ctx, maxlen, dtype, rank):
    import tensorflow as tf

    lengths = np.array([3, 0, 5, 2]) if rank == 1 else np.array([[3, 0], [5, 2]])
    limit = 6 if maxlen == "given" else None
    out = ctx.measure(
        lambda t: tf.sequence_mask(t, maxlen=limit, dtype=getattr(tf, dtype)),
        ctx.put(lengths.astype("int32")),
    )
    ctx.check(out.dtype.name == dtype, f"dtype {out.dtype.name}, not {dtype}", "type")
    width = 6 if limit else int(lengths.max())
    ctx.check_equal(out, (np.arange(width) < lengths[..., None]).astype(dtype))


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def mask_vectorized_map(ctx, mode):
    import tensorflow as tf

    lengths = ctx.rng.integers(0, 6, (5, 3)).astype("int32")
    out = ctx.measure(
        by_mode(ctx, lambda t: tf.vectorized_map(lambda r: tf.sequence_mask(r, maxlen=6), t), mode),
        ctx.put(lengths),
    )
    ctx.check_equal(out, np.arange(6) < lengths[..., None])
