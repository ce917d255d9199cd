"""tf.io.parse_single_sequence_example: context and feature_list features from a serialized proto."""

import numpy as np
from tfhelp import raises

from portbench_runner.api import case


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
