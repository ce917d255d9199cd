"""tf.debugging.assert_less: holds silently, raises on violation, dtypes, broadcasting, graph mode."""

import numpy as np
from tfhelp import MODES, REAL_FLOATS, SIGNED_INTS, UNSIGNED_INTS, raises

from portbench_runner.api import case, sweep


@case("float32-holds", dtype="float32")
@case("float64-holds", dtype="float64")
@case("int32-holds", dtype="int32")
@case("large-holds", dtype="float32", n=1_000_000)
def holds(ctx, dtype, n=256):
    import tensorflow as tf

    x = ctx.rng.integers(-100, 100, size=n).astype(dtype)
    y = x + 1
    out = ctx.measure(tf.debugging.assert_less, ctx.put(x), ctx.put(y))
    ctx.check(out is None, f"eager assert_less returned {out!r}, documented None", "other")


@case("violation-raises")
def violation(ctx):
    import tensorflow as tf

    x, y = ctx.put(np.array([1.0, 5.0, 2.0])), ctx.put(np.array([2.0, 5.0, 3.0]))
    out = ctx.measure(
        raises(
            lambda: tf.debugging.assert_less(x, y, message="bad"), tf.errors.InvalidArgumentError
        )
    )
    ctx.check(out == "InvalidArgumentError", f"5 < 5 raised {out}", "other")


@case("broadcast-scalar-bound")
def broadcast(ctx):
    import tensorflow as tf

    x = ctx.put(ctx.rng.uniform(0.0, 1.0, size=(16, 16)).astype("float32"))
    out = ctx.measure(
        raises(lambda: tf.debugging.assert_less(x, 1.0), tf.errors.InvalidArgumentError)
    )
    ctx.check(out is None, f"values < 1 against the scalar 1 raised {out}", "other")


@case("empty-holds")
def empty(ctx):
    import tensorflow as tf

    e = ctx.put(np.zeros((0,), dtype="float32"))
    out = ctx.measure(
        raises(lambda: tf.debugging.assert_less(e, e), tf.errors.InvalidArgumentError)
    )
    ctx.check(out is None, f"empty tensors (vacuously true) raised {out}", "other")


@case("graph-holds-and-gates")
@case("graph-violation-raises", bad=True)
def graph(ctx, bad=False):
    import tensorflow as tf

    @tf.function
    def checked(a, b):
        with tf.control_dependencies([tf.debugging.assert_less(a, b)]):
            return b - a

    x = ctx.put(np.array([1, 2, 3], dtype="int32"))
    y = ctx.put(np.array([2, 2 if bad else 4, 9], dtype="int32"))
    if bad:
        out = ctx.measure(raises(lambda: checked(x, y), tf.errors.InvalidArgumentError))
        ctx.check(out == "InvalidArgumentError", f"2 < 2 inside tf.function raised {out}", "other")
    else:
        out = ctx.measure(checked, x, y)
        ctx.check_equal(out, np.array([1, 2, 6], dtype="int32"))


# Every ordered dtype assert_less compares on the CPU (complex and bool are refused: not
# ordered), eager, in a tf.function and under XLA, where it gates a result through a control
# dependency. Under XLA the Assert op is compiled away (tf2xla has no runtime assertions), so
# only the holding form runs there; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-{form}-sweep",
    dtype=REAL_FLOATS + SIGNED_INTS + UNSIGNED_INTS,
    mode=MODES,
    form=["holds", "violation"],
    exclude=[{"mode": "xla", "form": "violation"}],
)
def assert_dtypes(ctx, dtype, mode, form):
    import tensorflow as tf
    from tfhelp import by_mode, placed

    def gated(a, b):
        with tf.control_dependencies([tf.debugging.assert_less(a, b)]):
            return tf.identity(b)

    lo = np.arange(0, 40, 2)  # even 0..38: exact in every width and in bfloat16
    hi = lo + 1
    if form == "violation":
        hi[7] = lo[7]  # one equal pair: not strictly less
    a, _ = placed(ctx, lo.astype("float32" if dtype == "bfloat16" else dtype), dtype)
    b, b_host = placed(ctx, hi.astype("float32" if dtype == "bfloat16" else dtype), dtype)
    fn = by_mode(ctx, gated, mode)
    if form == "holds":
        out = ctx.measure(fn, a, b)
        ctx.check_equal(out, b_host.astype(ctx.to_numpy(out).dtype))
    else:
        out = ctx.measure(raises(lambda: fn(a, b), tf.errors.InvalidArgumentError))
        ctx.check(out == "InvalidArgumentError", f"{dtype} 14 < 14 raised {out}", "other")


@case("scalar-against-matrix-broadcast")
def broadcast_scalar_left(ctx):
    import tensorflow as tf

    # A scalar on the left against a matrix: broadcasting the other way round.
    y = ctx.put(ctx.rng.integers(5, 50, size=(4, 6)).astype("int64"))
    out = ctx.measure(
        raises(lambda: tf.debugging.assert_less(np.int64(4), y), tf.errors.InvalidArgumentError)
    )
    ctx.check(out is None, f"4 < every value raised {out}", "other")


@case("incompatible-shapes-raise")
def shapes(ctx):
    import tensorflow as tf

    x, y = ctx.put(np.zeros(3, "float32")), ctx.put(np.ones(4, "float32"))
    out = ctx.measure(
        raises(lambda: tf.debugging.assert_less(x, y), ValueError, tf.errors.InvalidArgumentError)
    )
    ctx.check(out is not None, "shapes (3,) and (4,) were compared", "other")


# The study's other kinds of paths: the documented errors (a violation, shapes that do not
# broadcast, operands of different dtypes: exact type and message), and the full grid of
# message (none, given) x summarize (1, 3): the violation's message carries the text given
# and that many of the offending values. New names; the cases above keep their ids.
@sweep("error-{form}", form=["violation", "shapes-do-not-broadcast", "mixed-dtypes"])
def assert_less_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "violation":
        x, y = ctx.put(np.array([1, 5], dtype="int32")), ctx.put(np.array([2, 3], dtype="int32"))
        pattern = r"Condition x < y did not hold"
    elif form == "shapes-do-not-broadcast":
        x, y = ctx.put(np.ones(3, dtype="float32")), ctx.put(np.ones(4, dtype="float32"))
        pattern = r"Incompatible shapes: \[3\] vs\. \[4\]"
    else:
        x, y = ctx.put(np.ones(3, dtype="float32")), ctx.put(np.ones(3, dtype="int32"))
        pattern = r"cannot compute Less as input #1\(zero-based\) was expected to be a float tensor but is a int32 tensor"
    check_raises(
        ctx, lambda: tf.debugging.assert_less(x, y), tf.errors.InvalidArgumentError, pattern
    )


@sweep(
    "flags-message-{message}-summarize{summarize}-sweep",
    message=["none", "given"],
    summarize=[1, 3],
)
def assert_less_flags(ctx, message, summarize):
    import tensorflow as tf

    x = ctx.put(np.array([10.0, 20.0, 30.0, 40.0], dtype="float32"))
    y = ctx.put(np.zeros(4, dtype="float32"))
    kw = {"summarize": summarize}
    if message == "given":
        kw["message"] = "portbench-bound"

    def attempt():
        try:
            tf.debugging.assert_less(x, y, **kw)
        except tf.errors.InvalidArgumentError as exc:
            return str(exc)
        return ""

    text = ctx.measure(attempt)
    ctx.check(text, "the violation raised nothing", "other")
    ctx.check(
        ("portbench-bound" in text) == (message == "given"), f"message {text[:200]!r}", "other"
    )
    shown = [
        v
        for v in ("10", "20", "30", "40")
        if v in text.split("Corresponding x values:")[-1].split("Corresponding y values")[0]
    ]
    ctx.check(
        len(shown) == summarize,
        f"summarize={summarize} showed x values {shown}: {text[:300]!r}",
        "other",
    )
