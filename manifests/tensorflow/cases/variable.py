"""tf.Variable: creation from values, dtypes, assign ops, reads in tf.function/XLA, gradients."""

import numpy as np
from tfhelp import ALL_DTYPES, GRAD2_FLOATS, MODES, NUMERIC, REAL_FLOATS, by_mode, raises

from portbench_runner.api import case, sweep


@case("float32-matrix", dtype="float32", shape=(32, 32))
@case("float64-vector", dtype="float64", shape=(100,))
@case("int32-scalar", dtype="int32", shape=())
@case("bool-vector", dtype="bool", shape=(5,))
@case("bfloat16-vector", dtype="bfloat16", shape=(16,))
@case("float32-large", dtype="float32", shape=(1000, 1000))
def create(ctx, dtype, shape):
    import tensorflow as tf

    x = ctx.rng.standard_normal(shape) * 10
    x = x > 0 if dtype == "bool" else x.astype("float32" if dtype == "bfloat16" else dtype)
    init = ctx.put(x, dtype=dtype)
    out = ctx.measure(tf.Variable, init)
    ctx.check(
        out.dtype == getattr(tf, dtype) and out.trainable,
        f"{out.dtype}, trainable={out.trainable}",
        "type",
    )
    ctx.check_equal(out, ctx.to_numpy(init))


@case("assign-ops")
def assign(ctx):
    import tensorflow as tf

    v = tf.Variable(np.array([1.0, 2.0, 3.0], dtype="float32"))

    def update():
        v.assign_add([1.0, 1.0, 1.0])
        v.assign_sub([0.5, 0.5, 0.5])
        return v.scatter_nd_update([[1]], [10.0])

    ctx.measure(update, warm=False)
    ctx.check_equal(v, np.array([1.5, 10.0, 3.5], dtype="float32"))


@case("read-in-graph", mode="graph")
@case("update-in-xla", mode="xla")
def in_function(ctx, mode):
    import tensorflow as tf

    v = tf.Variable(np.ones((4, 4), dtype="float32"))

    def step(x):
        v.assign(v * 2.0 + x)
        return v.read_value()

    fn = by_mode(ctx, step, mode)
    out = ctx.measure(fn, ctx.put(np.full((4, 4), 0.5, dtype="float32")), warm=False)
    ctx.check_equal(out, np.full((4, 4), 2.5, dtype="float32"))


@case("gradient-trainable-only")
def gradient(ctx):
    import tensorflow as tf

    w = tf.Variable(np.array([2.0, -1.0]))
    frozen = tf.Variable(np.array([3.0, 3.0]), trainable=False)

    def grads():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(w * w * frozen)
        return tape.gradient(y, [w, frozen])

    gw, gf = ctx.measure(grads)
    ctx.check_close(gw, 2 * np.array([2.0, -1.0]) * 3.0, dtype="float64")
    ctx.check(gf is None, "a non-trainable variable got a gradient without being watched", "other")


@case("shape-mismatch-assign-raises")
def bad_assign(ctx):
    import tensorflow as tf

    v = tf.Variable(np.zeros(3, dtype="float32"))
    out = ctx.measure(
        raises(
            lambda: v.assign(np.zeros(4, dtype="float32")),
            ValueError,
            tf.errors.InvalidArgumentError,
        )
    )
    ctx.check(out is not None, "assigning 4 values to a 3-vector raised nothing", "other")


# A variable of every dtype, created from a device tensor, then assigned and read eagerly,
# inside a tf.function and under XLA (the variable lives outside the function: a
# tf.function may not create one per call); new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=ALL_DTYPES, mode=MODES)
def assign_read_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import draw, out_dtype, placed

    init, init_host = placed(ctx, draw(ctx, (4, 3), dtype, -9, 9), dtype)
    new, new_host = placed(ctx, draw(ctx, (4, 3), dtype, -9, 9), dtype)
    v = tf.Variable(init)
    ctx.check(out_dtype(v) == dtype and v.shape == (4, 3), f"{v.dtype} {v.shape}", "type")
    ctx.check_equal(v, init_host, what="initial value")

    def step(x):
        v.assign(x)
        return tf.identity(v)

    out = ctx.measure(by_mode(ctx, step, mode), new)
    ctx.check_equal(out, new_host)
    ctx.check_equal(v, new_host, what="variable after assign")


# assign_add / assign_sub in every numeric dtype (bool has no add) and mode; state changes,
# so timed once. Values 0..9, so the narrow and unsigned widths do not wrap.
@sweep("add-sub-{dtype}-{mode}-sweep", dtype=NUMERIC, mode=MODES)
def add_sub_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_swept, draw, placed

    init, init_host = placed(ctx, draw(ctx, (8,), dtype, 0, 10), dtype)
    step_t, step_host = placed(ctx, draw(ctx, (8,), dtype, 0, 10), dtype)
    v = tf.Variable(init)

    def update(x):
        v.assign_add(x)
        v.assign_add(x)
        v.assign_sub(x)
        return tf.identity(v)

    out = ctx.measure(by_mode(ctx, update, mode), step_t, warm=False)
    check_swept(ctx, out, init_host + step_host)


# d/dv sum(v * v) = 2 v for a trainable variable of each float dtype, in every mode.
@sweep("grad-{dtype}-{mode}-sweep", dtype=REAL_FLOATS, mode=MODES)
def grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_swept, draw, placed

    init, host = placed(ctx, draw(ctx, (16,), dtype), dtype)
    v = tf.Variable(init)

    def grad():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(v * v)
        return tape.gradient(y, v)

    out = ctx.measure(by_mode(ctx, grad, mode))
    check_swept(ctx, out, 2 * host)


# Constructor forms: a Python list, a callable initial value with a dtype, a shape left
# open (shape=tf.TensorShape(None) lets a later assign change it), trainable=False, a name.
@sweep(
    "form-{form}-sweep",
    form=["python-list", "callable-init", "open-shape", "not-trainable", "named"],
)
def forms(ctx, form):
    import tensorflow as tf

    make = {
        "python-list": lambda: tf.Variable([[1, 2], [3, 4]]),
        "callable-init": lambda: tf.Variable(lambda: tf.ones((2, 2)) * 3, dtype=tf.float32),
        "open-shape": lambda: tf.Variable([1.0], shape=tf.TensorShape(None)),
        "not-trainable": lambda: tf.Variable(2.5, trainable=False),
        "named": lambda: tf.Variable(0, name="counter"),
    }[form]
    v = ctx.measure(make)
    if form == "python-list":
        ctx.check(v.dtype == tf.int32, f"dtype {v.dtype}", "type")
        ctx.check_equal(v, np.array([[1, 2], [3, 4]], dtype="int32"))
    elif form == "callable-init":
        ctx.check_equal(v, np.full((2, 2), 3.0, dtype="float32"))
    elif form == "open-shape":
        v.assign([1.0, 2.0, 3.0])
        ctx.check(v.shape.rank is None, f"shape {v.shape}", "other")
        ctx.check_equal(v, np.array([1.0, 2.0, 3.0], dtype="float32"))
    elif form == "not-trainable":
        ctx.check(not v.trainable, "trainable=False was not kept", "other")
    else:
        ctx.check(v.name == "counter:0", f"name {v.name}", "other")


# The study's other kinds of paths for the Variable container: the documented errors for bad
# arguments (an assign of another shape or dtype, no initial value, a scatter index out of
# range: exact type and message), index forms (sliced and strided reads, sliced assigns,
# gathers and scatters), duplicate indices in scatters (scatter_nd_add, scatter_add,
# scatter_max and scatter_min combine every duplicate; scatter_nd_update keeps one of them),
# the full grid of trainable x shape (static, open), second derivatives through nested
# GradientTapes of sum(v**3) (6v) in float32 and float64, and checkpoint and restore with
# tf.train.Checkpoint, eager, in a tf.function and under XLA. New names; the cases above
# keep their ids.
@sweep(
    "error-{form}",
    form=["assign-shape", "assign-dtype", "no-initial-value", "scatter-out-of-range"],
)
def variable_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    v = tf.Variable([1.0, 2.0])
    call, exc, pattern = {
        "assign-shape": (
            lambda: v.assign([1.0, 2.0, 3.0]),
            ValueError,
            r"Cannot assign value to variable",
        ),
        "assign-dtype": (
            lambda: v.assign(tf.constant([1, 2])),
            ValueError,
            r"Tensor conversion requested dtype float32 for Tensor with dtype int32",
        ),
        "no-initial-value": (
            lambda: tf.Variable(None),
            ValueError,
            r"The `initial_value` arg to `tf\.Variable` must be specified",
        ),
        "scatter-out-of-range": (
            lambda: v.scatter_nd_update([[5]], [1.0]),
            tf.errors.InvalidArgumentError,
            r"indices\[0\] = \[5\] does not index into",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)


VARIABLE_INDEX_FORMS = [
    "slice-read",
    "strided-read",
    "negative-step-read",
    "slice-assign",
    "strided-assign",
    "gather",
    "scatter-nd-update",
]


@sweep("index-{form}-{mode}-sweep", form=VARIABLE_INDEX_FORMS, mode=MODES)
def variable_index_forms(ctx, form, mode):
    import tensorflow as tf

    x = np.arange(24, dtype="float32").reshape(4, 6)
    v = tf.Variable(x)

    def act():
        if form == "slice-read":
            return v[1:3, 2:]
        if form == "strided-read":
            return v[::2, 1::2]
        if form == "negative-step-read":
            return v[::-1, -2:]
        if form == "slice-assign":
            v[1:3, 2:].assign(tf.fill((2, 4), -1.0))
            return v.read_value()
        if form == "strided-assign":
            v[::2, ::3].assign(tf.fill((2, 2), -2.0))
            return v.read_value()
        if form == "gather":
            return v.sparse_read([3, 0, 3])
        v.scatter_nd_update([[0, 5], [3, 1]], [-3.0, -4.0])
        return v.read_value()

    out = ctx.measure(by_mode(ctx, act, mode), warm=False)
    expected = x.copy()
    if form == "slice-read":
        expected = x[1:3, 2:]
    elif form == "strided-read":
        expected = x[::2, 1::2]
    elif form == "negative-step-read":
        expected = x[::-1, -2:]
    elif form == "slice-assign":
        expected[1:3, 2:] = -1.0
    elif form == "strided-assign":
        expected[::2, ::3] = -2.0
    elif form == "gather":
        expected = x[[3, 0, 3]]
    else:
        expected[0, 5], expected[3, 1] = -3.0, -4.0
    ctx.check_equal(out, expected)


@sweep(
    "duplicate-{op}-{mode}-sweep",
    op=["scatter-nd-add", "scatter-add", "scatter-max", "scatter-min", "scatter-nd-update"],
    mode=MODES,
)
def variable_duplicates(ctx, op, mode):
    import tensorflow as tf

    base = np.arange(1.0, 7.0, dtype="float32")
    idx = np.array([1, 4, 1, 1, 4, 0])
    upd = np.array([2.0, -3.0, 5.0, 0.5, 4.0, 10.0], dtype="float32")
    v = tf.Variable(base)

    def act():
        if op == "scatter-nd-add":
            v.scatter_nd_add(idx[:, None], upd)
        elif op == "scatter-nd-update":
            v.scatter_nd_update(idx[:, None], upd)
        else:
            slices = tf.IndexedSlices(tf.constant(upd), tf.constant(idx))
            {
                "scatter-add": v.scatter_add,
                "scatter-max": v.scatter_max,
                "scatter-min": v.scatter_min,
            }[op](slices)
        return v.read_value()

    out = np.asarray(ctx.to_numpy(ctx.measure(by_mode(ctx, act, mode), warm=False)))
    if op == "scatter-nd-update":
        for target in np.unique(idx):
            ctx.check(
                out[target] in set(upd[idx == target].tolist()),
                f"index {target} holds {out[target]}, none of its updates",
                "other",
            )
        return
    expected = base.astype("float64").copy()
    ufunc = {
        "scatter-nd-add": np.add,
        "scatter-add": np.add,
        "scatter-max": np.maximum,
        "scatter-min": np.minimum,
    }[op]
    ufunc.at(expected, idx, upd.astype("float64"))
    ctx.check_close(out, expected, dtype="float32")


@sweep(
    "flags-{trainable}-{shape}-sweep",
    trainable=["trainable", "not-trainable"],
    shape=["static-shape", "open-shape"],
)
def variable_flags(ctx, trainable, shape):
    import tensorflow as tf

    kw = {"trainable": trainable == "trainable"}
    if shape == "open-shape":
        kw["shape"] = tf.TensorShape(None)
    v = ctx.measure(lambda: tf.Variable([1.0, 2.0], **kw))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * v)
    grad = tape.gradient(y, v)
    if kw["trainable"]:
        ctx.check_equal(grad, np.array([2.0, 4.0], dtype="float32"))
    else:
        ctx.check(
            grad is None, f"a variable with trainable=False was watched: gradient {grad}", "other"
        )
    if shape == "open-shape":
        v.assign([5.0, 6.0, 7.0])
        ctx.check_equal(v, np.array([5.0, 6.0, 7.0], dtype="float32"))
    else:
        ctx.check(v.shape.as_list() == [2], f"shape {v.shape}", "other")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def variable_grad2(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_swept

    x = ctx.rng.uniform(-2, 2, 16).astype(dtype)
    v = tf.Variable(x)

    def d2():
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = tf.reduce_sum(v**3)
            dy = inner.gradient(y, v)
        return outer.gradient(dy, v)

    out = ctx.measure(by_mode(ctx, d2, mode))
    ctx.check(out.dtype.name == dtype, f"dtype {out.dtype.name}", "type")
    check_swept(ctx, out, 6 * x.astype("float64"))


@case("checkpoint-save-restore")
def variable_checkpoint(ctx):
    import os
    import tempfile

    import tensorflow as tf

    x = ctx.rng.standard_normal((3, 4)).astype("float32")
    v = tf.Variable(x)
    step = tf.Variable(7, dtype=tf.int64)
    checkpoint = tf.train.Checkpoint(weights=v, step=step)
    with tempfile.TemporaryDirectory() as folder:
        path = checkpoint.save(os.path.join(folder, "ckpt"))
        v.assign(tf.zeros((3, 4)))
        step.assign(0)

        def restore():
            checkpoint.restore(path).assert_consumed()
            return v.read_value(), step.read_value()

        weights, count = ctx.measure(restore, warm=False)
    ctx.check_equal(weights, x)
    ctx.check_equal(count, np.int64(7))
