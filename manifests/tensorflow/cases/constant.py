"""tf.constant: from lists, NumPy arrays and scalars; dtype and shape options; strings; graph/XLA."""

import numpy as np
from tfhelp import EVERY_DTYPE, MODES, by_mode

from portbench_runner.api import case, sweep


@case("list-float32", value=[[1.5, 2.0], [3.0, -4.25]], dtype=None, expect="float32")
@case("list-int32", value=[1, 2, 3], dtype=None, expect="int32")
@case("list-to-float64", value=[1, 2, 3], dtype="float64", expect="float64")
@case("bool-list", value=[True, False], dtype=None, expect="bool")
@case("scalar-bfloat16", value=1.5, dtype="bfloat16", expect="bfloat16")
@case("empty-list", value=[], dtype=None, expect="float32")
def constant_values(ctx, value, dtype, expect):
    import tensorflow as tf

    kwargs = {"dtype": getattr(tf, dtype)} if dtype else {}
    out = ctx.measure(tf.constant, value, **kwargs)
    ctx.check(out.dtype.name == expect, f"dtype {out.dtype.name}, expected {expect}", "type")
    ctx.check_equal(out, np.array(value, dtype="float32" if expect == "bfloat16" else expect))


@case("numpy-float64-keeps-dtype", shape=(64, 64))
@case("numpy-large", shape=(1000, 1000))
def constant_numpy(ctx, shape):
    import tensorflow as tf

    x = ctx.rng.standard_normal(shape)
    out = ctx.measure(tf.constant, x)
    ctx.check(out.dtype == tf.float64, f"a float64 array became {out.dtype.name}", "type")
    ctx.check_equal(out, x)


@case("scalar-broadcast-to-shape")
def constant_shape(ctx):
    import tensorflow as tf

    out = ctx.measure(tf.constant, 7.0, shape=(3, 4))
    ctx.check_equal(out, np.full((3, 4), 7.0, dtype="float32"))


@case("string-bytes")
def constant_string(ctx):
    import tensorflow as tf

    out = ctx.measure(tf.constant, ["ab", "ü"])
    ctx.check_equal(out, np.array([b"ab", "ü".encode()], dtype=object))


@case("inside-graph", mode="graph")
@case("inside-xla", mode="xla")
def constant_compiled(ctx, mode):
    import tensorflow as tf

    table = np.arange(12, dtype="float32").reshape(3, 4)
    fn = by_mode(ctx, lambda t: t + tf.constant(table), mode)
    out = ctx.measure(fn, ctx.put(np.ones((3, 4), dtype="float32")))
    ctx.check_equal(out, table + 1)


def _source(ctx, dtype, form):
    """The value handed to tf.constant in ``form`` and the array it must equal (host dtype:
    bfloat16 as float32)."""
    from tfhelp import draw_any

    x = draw_any(ctx, (3, 4), dtype, 0, 9)
    if form == "list":
        return x.tolist(), x
    if form == "scalar-shape":
        return x.flat[0].item(), np.full((3, 4), x.flat[0])
    return x, x


# Every dtype tf.constant builds, from a NumPy array, a Python list (converted to the
# dtype asked for) and a scalar broadcast to a shape; eager, inside a tf.function and
# under XLA (where the constant is folded into the compiled graph); new names, so the
# cases above keep their ids.
@sweep(
    "{dtype}-{form}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    form=["numpy", "list", "scalar-shape"],
    mode=MODES,
)
def constant_dtypes(ctx, dtype, form, mode):
    import tensorflow as tf
    from tfhelp import check_dtype

    value, expected = _source(ctx, dtype, form)
    target = getattr(tf, dtype)
    shape = (3, 4) if form == "scalar-shape" else None
    if mode == "eager":
        out = ctx.measure(tf.constant, value, dtype=target, shape=shape)
    else:
        out = ctx.measure(by_mode(ctx, lambda: tf.constant(value, dtype=target, shape=shape), mode))
    check_dtype(ctx, out, dtype)
    got = ctx.to_numpy(out)
    ctx.check_equal(got, np.asarray(expected).astype(got.dtype))


@case("lossy-conversion-raises")
def constant_lossy(ctx):
    import tensorflow as tf
    from tfhelp import raises

    # A Python float does not become an integer constant silently.
    out = ctx.measure(raises(lambda: tf.constant([1.5], dtype=tf.int32), TypeError, ValueError))
    ctx.check(out is not None, "tf.constant([1.5], int32) raised nothing", "type")


# The study's other kinds of paths: the documented errors for bad values (a lossy dtype, a
# shape of another size, a ragged list: exact type and message), and index forms of the
# tensor it makes (basic slices, negative steps, Ellipsis and tf.newaxis, integer and
# negative integer indices that drop axes, tensor slice bounds), eager, in a tf.function and
# under XLA. New names; the cases above keep their ids.
@sweep("error-{form}", form=["lossy-dtype", "shape-size", "ragged-list"])
def constant_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    call, exc, pattern = {
        "lossy-dtype": (
            lambda: tf.constant([1.5], dtype=tf.int32),
            TypeError,
            r"Cannot convert \[1\.5\] to EagerTensor of dtype int32",
        ),
        "shape-size": (
            lambda: tf.constant([1, 2, 3], shape=(2,)),
            TypeError,
            r"Eager execution of tf\.constant with unsupported shape",
        ),
        "ragged-list": (
            lambda: tf.constant([[1, 2], [3]]),
            ValueError,
            r"Can't convert non-rectangular Python sequence to Tensor",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)


CONSTANT_INDEX_FORMS = [
    "basic-slice",
    "negative-step",
    "ellipsis-newaxis",
    "int-index",
    "negative-int-index",
    "tensor-bounds",
]


@sweep("index-{form}-{mode}-sweep", form=CONSTANT_INDEX_FORMS, mode=MODES)
def constant_index_forms(ctx, form, mode):
    import tensorflow as tf

    x = np.arange(60, dtype="float32").reshape(3, 4, 5)

    def index(t, lo):
        return {
            "basic-slice": lambda: t[1:, 1:3, ::2],
            "negative-step": lambda: t[::-1, -2:, ::-2],
            "ellipsis-newaxis": lambda: t[..., tf.newaxis, 1],
            "int-index": lambda: t[2, :, 3],
            "negative-int-index": lambda: t[-1, -2],
            "tensor-bounds": lambda: t[lo : lo + 2, :, lo],
        }[form]()

    out = ctx.measure(by_mode(ctx, index, mode), tf.constant(x), ctx.put(np.int32(1)))
    expected = {
        "basic-slice": x[1:, 1:3, ::2],
        "negative-step": x[::-1, -2:, ::-2],
        "ellipsis-newaxis": x[..., None, 1],
        "int-index": x[2, :, 3],
        "negative-int-index": x[-1, -2],
        "tensor-bounds": x[1:3, :, 1],
    }[form]
    ctx.check_equal(out, expected)
