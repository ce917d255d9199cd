"""tf.print: formatting of tensors and Python values, summarize, sep/end, inside tf.function.

Output goes to a file (output_stream="file://...") so each case can read what was printed.
"""

import os
import tempfile

import numpy as np

from portbench_runner.api import case


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
