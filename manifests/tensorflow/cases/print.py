"""tf.print: formatting of tensors and Python values, summarize, sep/end, inside tf.function.

Output goes to a file (output_stream="file://...") so each case can read what was printed.
"""

import os
import tempfile

import numpy as np
from tfhelp import ALL_DTYPES, COMPLEXES, SIGNED_INTS, UNSIGNED_INTS, by_mode

from portbench_runner.api import case, sweep


def _target():
    folder = tempfile.mkdtemp(prefix="portbench-tfprint-")
    path = os.path.join(folder, "out.txt")
    return path, "file://" + path


def _first_line(path):
    with open(path, encoding="utf-8") as fh:
        return fh.readline().rstrip("\n")


@case("vector-int32")
def vector(ctx):
    import tensorflow as tf

    path, stream = _target()
    ctx.measure(tf.print, ctx.put(np.array([1, 2, 3], dtype="int32")), output_stream=stream)
    ctx.check(_first_line(path) == "[1 2 3]", f"printed {_first_line(path)!r}", "other")


@case("mixed-args-sep-end")
def mixed(ctx):
    import tensorflow as tf

    path, stream = _target()
    t = ctx.put(np.array([[1.5, 2.0]], dtype="float32"))
    ctx.measure(tf.print, "loss:", t, 7, sep="|", end=";\n", output_stream=stream)
    ctx.check(_first_line(path) == "loss:|[[1.5 2]]|7;", f"printed {_first_line(path)!r}", "other")


@case("summarize-large")
def summarize(ctx):
    import tensorflow as tf

    path, stream = _target()
    t = ctx.put(np.arange(1_000_000, dtype="int64"))
    ctx.measure(tf.print, t, summarize=2, output_stream=stream)
    ctx.check(
        _first_line(path) == "[0 1 ... 999998 999999]", f"printed {_first_line(path)!r}", "other"
    )


@case("inside-tf-function")
def in_graph(ctx):
    import tensorflow as tf

    path, stream = _target()

    @tf.function
    def fn(x):
        tf.print("x=", x * 2, output_stream=stream)
        return x + 1

    out = ctx.measure(fn, ctx.put(np.array([4, 5], dtype="int32")))
    ctx.check(_first_line(path) == "x= [8 10]", f"printed {_first_line(path)!r}", "other")
    ctx.check_equal(out, np.array([5, 6], dtype="int32"))


@case("nested-structure")
def nested(ctx):
    import tensorflow as tf

    path, stream = _target()
    ctx.measure(tf.print, {"a": ctx.put(np.array(1, dtype="int32"))}, output_stream=stream)
    ctx.check(_first_line(path) == "{'a': 1}", f"printed {_first_line(path)!r}", "other")


# A tensor of every dtype, printed eagerly and from a tf.function: integers and bool as
# digits (True as 1), floats in their shortest form (1.25, -0.25, 2.75 are exact in every
# float dtype), complex as (re,im) pairs. XLA cannot compile the host-side PrintV2 op by
# design: one case ("int32-xla") keeps that refusal visible instead of a failing copy per
# dtype and form. New names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=ALL_DTYPES, mode=["eager", "graph"])
@case("int32-xla", dtype="int32", mode="xla")
def print_dtypes(ctx, dtype, mode):
    import tensorflow as tf

    path, stream = _target()
    if dtype == "bool":
        values, text = np.array([True, False, True]), "[1 0 1]"
    elif dtype in SIGNED_INTS + UNSIGNED_INTS:
        values, text = np.array([1, 0, 2]), "[1 0 2]"
    elif dtype in COMPLEXES:
        values, text = np.array([1.25 - 1j, -0.25 + 0.5j, 2.75]), "[(1.25,-1) (-0.25,0.5) (2.75,0)]"
    else:
        values, text = np.array([1.25, -0.25, 2.75], dtype="float32"), "[1.25 -0.25 2.75]"
    x = ctx.put(values, dtype=dtype)

    def fn(t):
        tf.print(t, output_stream=stream)
        return tf.constant(0)  # a tf.function must return tensors, not the print op

    ctx.measure(by_mode(ctx, fn, mode), x, warm=False)
    ctx.check(_first_line(path) == text, f"printed {_first_line(path)!r}, not {text!r}", "other")


# The argument forms, eagerly and from a tf.function: several tensors with sep/end, a nested structure, a
# scalar, an empty tensor and summarize=-1 (everything) on a matrix.
@sweep(
    "{form}-{mode}-sweep",
    form=["sep-end", "nested", "scalar", "empty", "summarize-all"],
    mode=["eager", "graph"],
)
def print_forms(ctx, form, mode):
    import tensorflow as tf

    path, stream = _target()
    a = ctx.put(np.array([3, 4], dtype="int32"))
    b = ctx.put(np.arange(12, dtype="int64").reshape(3, 4))

    def fn(u, v):
        if form == "sep-end":
            tf.print("a", u, v[0], sep=",", end="!\n", output_stream=stream)
        elif form == "nested":
            tf.print({"u": u, "w": [u[0], 5]}, output_stream=stream)
        elif form == "scalar":
            tf.print(u[1], output_stream=stream)
        elif form == "empty":
            tf.print(v[:0], output_stream=stream)
        else:
            tf.print(v, summarize=-1, output_stream=stream)
        return tf.constant(0)

    ctx.measure(by_mode(ctx, fn, mode), a, b, warm=False)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    expected = {
        "sep-end": "a,[3 4],[0 1 2 3]!\n",
        "nested": "{'u': [3 4], 'w': [3, 5]}\n",
        "scalar": "4\n",
        "empty": "[]\n",
        "summarize-all": "[[0 1 2 3]\n [4 5 6 7]\n [8 9 10 11]]\n",
    }[form]
    ctx.check(text == expected, f"printed {text!r}, not {expected!r}", "other")


# The study's other kinds of paths: the documented error for an output stream it does not
# know (exact type and message), and the full grid of summarize (2, all) x sep (default, a
# string) x end (default, a string), read back from the file it prints to. New names; the
# cases above keep their ids.
@case("error-unknown-stream")
def print_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    check_raises(
        ctx, lambda: tf.print(1, output_stream="nowhere"), ValueError, r"Unsupported output stream"
    )


@sweep(
    "flags-summarize-{summarize}-sep-{sep}-end-{end}-sweep",
    summarize=["2", "all"],
    sep=["default", "custom"],
    end=["default", "custom"],
)
def print_flags(ctx, summarize, sep, end):
    import tensorflow as tf

    path, stream = _target()
    kw = {"summarize": 2 if summarize == "2" else -1, "output_stream": stream}
    if sep == "custom":
        kw["sep"] = " | "
    if end == "custom":
        kw["end"] = "<END>\n"
    values = tf.constant(np.arange(1, 7, dtype="int32"))
    ctx.measure(lambda: tf.print("v:", values, **kw), warm=False)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    body = "[1 2 ... 5 6]" if summarize == "2" else "[1 2 3 4 5 6]"
    expected = (
        "v:" + (" | " if sep == "custom" else " ") + body + ("<END>\n" if end == "custom" else "\n")
    )
    ctx.check(text == expected, f"printed {text!r}, expected {expected!r}", "other")
