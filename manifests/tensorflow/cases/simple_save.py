"""tf.compat.v1.saved_model.simple_save: a TF1 SavedModel that reloads and computes the same outputs."""

import os
import tempfile

import numpy as np
from tfhelp import raises, v1_graph, v1_session

from portbench_runner.api import case


def _reload_and_run(ctx, export_dir, feeds):
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1_graph(ctx) as graph:
        pass
    with v1_session(graph) as sess:
        meta = v1.saved_model.loader.load(sess, [v1.saved_model.tag_constants.SERVING], export_dir)
        sig = meta.signature_def["serving_default"]
        feed = {graph.get_tensor_by_name(sig.inputs[k].name): v for k, v in feeds.items()}
        fetch = {k: graph.get_tensor_by_name(t.name) for k, t in sig.outputs.items()}
        return sess.run(fetch, feed)


@case("float32-linear-model", dtype="float32")
@case("float64-linear-model", dtype="float64")
def linear(ctx, dtype):
    import tensorflow as tf

    v1 = tf.compat.v1
    w = ctx.rng.standard_normal((4, 3)).astype(dtype)
    x = ctx.rng.standard_normal((5, 4)).astype(dtype)
    export_dir = os.path.join(tempfile.mkdtemp(prefix="portbench-savedmodel-"), "m")
    with v1_graph(ctx) as graph:
        inp = v1.placeholder(getattr(tf, dtype), [None, 4], name="x")
        weight = v1.Variable(w, name="w")
        out_t = tf.matmul(inp, weight, name="y")
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess:
        sess.run(init)
        with graph.as_default():
            ctx.measure(
                v1.saved_model.simple_save, sess, export_dir, {"x": inp}, {"y": out_t}, warm=False
            )
    ctx.check(
        os.path.exists(os.path.join(export_dir, "saved_model.pb")),
        "no saved_model.pb written",
        "other",
    )
    got = _reload_and_run(ctx, export_dir, {"x": x})
    tol = 1e-5 if dtype == "float32" else 1e-12
    ctx.check_close(got["y"], x.astype("float64") @ w, rtol=tol, atol=tol)


@case("two-inputs-two-outputs")
def multi(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    export_dir = os.path.join(tempfile.mkdtemp(prefix="portbench-savedmodel-"), "m")
    with v1_graph(ctx) as graph:
        a = v1.placeholder(tf.int32, [None])
        b = v1.placeholder(tf.int32, [None])
        total, prod = a + b, a * b
    with v1_session(graph) as sess, graph.as_default():
        ctx.measure(
            v1.saved_model.simple_save,
            sess,
            export_dir,
            {"a": a, "b": b},
            {"sum": total, "prod": prod},
            warm=False,
        )
    got = _reload_and_run(ctx, export_dir, {"a": [1, 2, 3], "b": [4, 5, 6]})
    ctx.check_equal(got["sum"], np.array([5, 7, 9], dtype="int32"))
    ctx.check_equal(got["prod"], np.array([4, 10, 18], dtype="int32"))


@case("existing-dir-raises")
def existing(ctx):
    import tensorflow as tf

    v1 = tf.compat.v1
    export_dir = tempfile.mkdtemp(prefix="portbench-savedmodel-")  # exists and is not empty
    open(os.path.join(export_dir, "saved_model.pb"), "wb").close()
    with v1_graph(ctx) as graph:
        a = v1.placeholder(tf.float32, [1])
        b = a + 1.0
    with v1_session(graph) as sess, graph.as_default():
        out = ctx.measure(
            raises(
                lambda: v1.saved_model.simple_save(sess, export_dir, {"a": a}, {"b": b}),
                AssertionError,
                RuntimeError,
                ValueError,
            )
        )
    ctx.check(out is not None, "saving into an existing SavedModel folder raised nothing", "other")
