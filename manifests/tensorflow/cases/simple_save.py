"""tf.compat.v1.saved_model.simple_save: a TF1 SavedModel that reloads and computes the same outputs."""

import os
import tempfile

import numpy as np
from tfhelp import ALL_DTYPES, STRINGS, raises, v1_graph, v1_session

from portbench_runner.api import case, sweep


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


# A model of every dtype (string included: a SavedModel signature carries any dtype): the
# input is reversed and a variable of the same dtype is read, saved, reloaded in a fresh
# graph and run; new names, so the cases above keep their ids.
@sweep("{dtype}-sweep", dtype=ALL_DTYPES + STRINGS)
def dtypes(ctx, dtype):
    import tensorflow as tf
    from tfhelp import draw, host_exact

    v1 = tf.compat.v1
    tdt = getattr(tf, dtype)
    if dtype == "string":
        x = np.array([b"a", b"bc", b""], dtype=object)
        w = np.array([b"w0", b"w1"], dtype=object)
    else:
        x = host_exact(ctx, ctx.put(draw(ctx, (3,), dtype, -9, 9), dtype=dtype))
        w = host_exact(ctx, ctx.put(draw(ctx, (2,), dtype, -9, 9), dtype=dtype))
    export_dir = os.path.join(tempfile.mkdtemp(prefix="portbench-savedmodel-"), "m")
    with v1_graph(ctx) as graph:
        inp = v1.placeholder(tdt, [None], name="x")
        var = v1.Variable(tf.constant(w, dtype=tdt), name="w")
        outputs = {"y": tf.reverse(inp, [0]), "w": tf.identity(var)}
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess, graph.as_default():
        sess.run(init)
        ctx.measure(v1.saved_model.simple_save, sess, export_dir, {"x": inp}, outputs, warm=False)
    got = _reload_and_run(ctx, export_dir, {"x": x})
    ctx.check_equal(got["y"], x[::-1])
    ctx.check_equal(got["w"], w)


# Forms: a scalar input, an output that does not depend on the input (only on a variable),
# and a legacy_init_op-free model with no variables at all.
@sweep("form-{form}-sweep", form=["scalar-input", "variable-only-output", "no-variables"])
def forms(ctx, form):
    import tensorflow as tf

    v1 = tf.compat.v1
    export_dir = os.path.join(tempfile.mkdtemp(prefix="portbench-savedmodel-"), "m")
    with v1_graph(ctx) as graph:
        inp = v1.placeholder(tf.float32, [] if form == "scalar-input" else [None])
        if form == "no-variables":
            out = inp * 3.0
        else:
            var = v1.Variable(np.float32(4.0))
            out = var + 0.0 if form == "variable-only-output" else inp * var
        init = v1.global_variables_initializer()
    with v1_session(graph) as sess, graph.as_default():
        sess.run(init)
        ctx.measure(
            v1.saved_model.simple_save, sess, export_dir, {"x": inp}, {"y": out}, warm=False
        )
    x = np.float32(2.5) if form == "scalar-input" else np.array([1.0, 2.0], dtype="float32")
    got = _reload_and_run(ctx, export_dir, {"x": x})
    expected = {"scalar-input": 10.0, "variable-only-output": 4.0, "no-variables": x * 3.0}[form]
    ctx.check_close(got["y"], np.asarray(expected, dtype="float64"), dtype="float32")


# The study's other kind of path here: the documented error for an export folder that holds
# files already (exact type and message). New name; the cases above keep their ids.
@case("error-folder-not-empty")
def simple_save_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    v1 = tf.compat.v1
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "already-here"), "w", encoding="utf-8") as fh:
            fh.write("x")
        with v1_graph(ctx) as graph:
            x = v1.placeholder(tf.float32, (None,))
            y = x * 2
        with v1_session(graph) as sess:
            check_raises(
                ctx,
                lambda: v1.saved_model.simple_save(sess, folder, {"x": x}, {"y": y}),
                AssertionError,
                r"Export directory .* already exists, and isn't empty",
            )
