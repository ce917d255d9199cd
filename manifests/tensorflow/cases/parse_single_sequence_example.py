"""tf.io.parse_single_sequence_example: context and feature_list features from a serialized proto."""

import numpy as np
from tfhelp import raises

from portbench_runner.api import case, sweep


def _example(steps=3, with_label=True):
    import tensorflow as tf

    ctx_feats = {"length": tf.train.Feature(int64_list=tf.train.Int64List(value=[steps]))}
    if with_label:
        ctx_feats["label"] = tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, 1.5]))
    tokens = [
        tf.train.Feature(int64_list=tf.train.Int64List(value=[i, i * 10])) for i in range(steps)
    ]
    words = [
        tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"w%d" % j for j in range(i + 1)]))
        for i in range(steps)
    ]
    example = tf.train.SequenceExample(
        context=tf.train.Features(feature=ctx_feats),
        feature_lists=tf.train.FeatureLists(
            feature_list={
                "tokens": tf.train.FeatureList(feature=tokens),
                "words": tf.train.FeatureList(feature=words),
            }
        ),
    )
    return example.SerializeToString()


def _specs():
    import tensorflow as tf

    context = {
        "length": tf.io.FixedLenFeature([], tf.int64),
        "label": tf.io.FixedLenFeature([2], tf.float32, default_value=[-1.0, -1.0]),
    }
    sequence = {
        "tokens": tf.io.FixedLenSequenceFeature([2], tf.int64),
        "words": tf.io.VarLenFeature(tf.string),
    }
    return context, sequence


def _parse(serialized, context, sequence):
    import tensorflow as tf

    parsed = tf.io.parse_single_sequence_example(
        serialized, context_features=context, sequence_features=sequence
    )
    return parsed[0], parsed[1]  # (context, feature_lists) in every version


@case("context-and-sequences")
def full(ctx):
    import tensorflow as tf

    context, sequence = _specs()
    ctx_out, seq_out = ctx.measure(_parse, tf.constant(_example()), context, sequence)
    ctx.check_equal(ctx_out["length"], np.int64(3))
    ctx.check_equal(ctx_out["label"], np.array([0.5, 1.5], dtype="float32"))
    ctx.check_equal(seq_out["tokens"], np.array([[0, 0], [1, 10], [2, 20]], dtype="int64"))
    ctx.check_equal(
        seq_out["words"].values, np.array([b"w0", b"w0", b"w1", b"w0", b"w1", b"w2"], dtype=object)
    )


@case("default-for-missing-context")
def default(ctx):
    import tensorflow as tf

    context, sequence = _specs()
    ctx_out, _ = ctx.measure(_parse, tf.constant(_example(with_label=False)), context, sequence)
    ctx.check_equal(ctx_out["label"], np.array([-1.0, -1.0], dtype="float32"))


@case("long-sequence")
def long(ctx):
    import tensorflow as tf

    context, sequence = _specs()
    _ctx_out, seq_out = ctx.measure(_parse, tf.constant(_example(steps=2000)), context, sequence)
    ctx.check_equal(seq_out["tokens"][:, 1], np.arange(2000, dtype="int64") * 10)


@case("in-tf-function")
def graph(ctx):
    import tensorflow as tf

    context, sequence = _specs()
    fn = ctx.graph(lambda s: _parse(s, context, sequence)[1]["tokens"])
    out = ctx.measure(fn, tf.constant(_example(steps=4)))
    ctx.check_equal(out[:, 0], np.arange(4, dtype="int64"))


@case("missing-required-raises")
def missing(ctx):
    import tensorflow as tf

    context = {"absent": tf.io.FixedLenFeature([], tf.int64)}
    call = raises(
        lambda: _parse(tf.constant(_example()), context, {}), tf.errors.InvalidArgumentError
    )
    out = ctx.measure(call)
    ctx.check(
        out == "InvalidArgumentError", f"a missing required context feature raised {out}", "other"
    )


def _typed_example(dtype, steps):
    """A SequenceExample whose context "c" holds 2 values and whose feature list "s" holds
    `steps` features of 2 values each (step i: i, i + 1), all of one proto value type."""
    import tensorflow as tf

    def feature(values):
        if dtype == "float32":
            return tf.train.Feature(float_list=tf.train.FloatList(value=[v + 0.5 for v in values]))
        if dtype == "int64":
            return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"v%d" % v for v in values]))

    example = tf.train.SequenceExample(
        context=tf.train.Features(feature={"c": feature([7, 8])}),
        feature_lists=tf.train.FeatureLists(
            feature_list={
                "s": tf.train.FeatureList(feature=[feature([i, i + 1]) for i in range(steps)])
            }
        ),
    )
    return example.SerializeToString()


def _typed_values(dtype, ints):
    ints = np.asarray(ints)
    if dtype == "float32":
        return (ints + 0.5).astype("float32")
    if dtype == "int64":
        return ints.astype("int64")
    return np.vectorize(lambda v: b"v%d" % v, otypes=[object])(ints)


# The three value types a tf.train.Feature holds (float32, int64, bytes), each as a
# FixedLen context feature plus a sequence parsed as FixedLenSequence, VarLen and Ragged
# features, eagerly and inside a tf.function (parsing runs on the host: XLA does not compile
# it). New names, so the cases above keep their ids.
@sweep(
    "{dtype}-{kind}-{mode}-sweep",
    dtype=["float32", "int64", "string"],
    kind=["fixed-len", "var-len", "ragged"],
    mode=["eager", "graph"],
)
def typed(ctx, dtype, kind, mode):
    import tensorflow as tf
    from tfhelp import by_mode

    tdt = getattr(tf, dtype)
    seq_spec = {
        "fixed-len": tf.io.FixedLenSequenceFeature([2], tdt),
        "var-len": tf.io.VarLenFeature(tdt),
        "ragged": tf.io.RaggedFeature(tdt),
    }[kind]
    context = {"c": tf.io.FixedLenFeature([2], tdt)}

    def parse(s):
        c, seq = _parse(s, context, {"s": seq_spec})
        out = seq["s"]
        if kind == "var-len":
            out = out.values
        elif kind == "ragged":
            out = out.flat_values
        return c["c"], out

    c_out, s_out = ctx.measure(by_mode(ctx, parse, mode), tf.constant(_typed_example(dtype, 4)))
    steps = np.array([[i, i + 1] for i in range(4)])
    ctx.check(c_out.dtype == tdt and s_out.dtype == tdt, f"{c_out.dtype}, {s_out.dtype}", "type")
    ctx.check_equal(c_out, _typed_values(dtype, [7, 8]))
    expected = steps if kind == "fixed-len" else steps.ravel()
    ctx.check_equal(s_out, _typed_values(dtype, expected))


# Forms: an empty feature list (zero steps), a sequence feature absent from the proto with
# allow_missing=True (an empty result), and the serialized proto passed to a tf.function as
# its argument (the graph parses whatever string arrives at run time).
@sweep("form-{form}-sweep", form=["zero-steps", "allow-missing", "runtime-string"])
def forms(ctx, form):
    import tensorflow as tf

    steps = 0 if form == "zero-steps" else 3
    name = "absent" if form == "allow-missing" else "s"
    sequence = {name: tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)}
    serialized = _typed_example("int64", steps)
    if form == "runtime-string":
        fn = ctx.graph(lambda s: _parse(s, {}, sequence)[1][name])
    else:
        fn = lambda s: _parse(s, {}, sequence)[1][name]  # noqa: E731
    out = ctx.measure(fn, tf.constant(serialized))
    if form == "runtime-string":
        ctx.check_equal(out, np.array([[0, 1], [1, 2], [2, 3]], dtype="int64"))
    else:
        ctx.check(tuple(out.shape) == (0, 2), f"shape {out.shape}, not (0, 2)", "other")


# The study's other kind of path here: the documented errors for bad input (a required
# context feature that is missing, reported as an element count of 0 where 1 is expected;
# bytes that are no proto; no feature specs at all: exact type and message). New names; the cases above keep their ids.
@sweep("error-{form}", form=["missing-required", "not-a-proto", "no-features"])
def parse_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    empty = tf.train.SequenceExample().SerializeToString()
    required = {"a": tf.io.FixedLenFeature([], tf.int64)}
    optional = {"a": tf.io.FixedLenFeature([], tf.int64, default_value=0)}
    call, exc, pattern = {
        "missing-required": (
            lambda: tf.io.parse_single_sequence_example(empty, context_features=required),
            tf.errors.InvalidArgumentError,
            r"Inconsistent max number of elements for feature a: expected 1, but found 0",
        ),
        "not-a-proto": (
            lambda: tf.io.parse_single_sequence_example(
                b"\xff\xfe garbage", context_features=optional
            ),
            tf.errors.InvalidArgumentError,
            r"Invalid protocol message input",
        ),
        "no-features": (
            lambda: tf.io.parse_single_sequence_example(empty),
            ValueError,
            r"Both context_features and sequence_features are None",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)
