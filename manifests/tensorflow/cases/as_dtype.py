"""tf.dtypes.as_dtype: from names, NumPy types, enum values and DTypes; properties; bad input raises."""

import numpy as np
from tfhelp import EVERY_DTYPE, raises

from portbench_runner.api import case, sweep

NAMES = [
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int8",
    "int32",
    "int64",
    "uint8",
    "bool",
    "complex64",
    "string",
]


@case("from-names")
def from_names(ctx):
    import tensorflow as tf

    out = ctx.measure(lambda: [tf.dtypes.as_dtype(n) for n in NAMES])
    ctx.check(
        [d.name for d in out] == NAMES, f"names round-trip as {[d.name for d in out]}", "other"
    )


@case("from-numpy")
def from_numpy(ctx):
    import tensorflow as tf

    types = [np.float32, np.float64, np.int64, np.bool_, np.dtype("uint8"), np.complex128]
    out = ctx.measure(lambda: [tf.dtypes.as_dtype(t) for t in types])
    expect = [tf.float32, tf.float64, tf.int64, tf.bool, tf.uint8, tf.complex128]
    ctx.check(out == expect, f"NumPy types map to {out}", "type")


@case("from-enum-and-dtype")
def from_enum(ctx):
    import tensorflow as tf

    out = ctx.measure(
        lambda: (tf.dtypes.as_dtype(tf.float32.as_datatype_enum), tf.dtypes.as_dtype(tf.int16))
    )
    ctx.check(out == (tf.float32, tf.int16), f"enum/DType inputs gave {out}", "type")


@case("properties")
def properties(ctx):
    import tensorflow as tf

    out = ctx.measure(tf.dtypes.as_dtype, "bfloat16")
    ctx.check(out.is_floating and not out.is_integer, "bfloat16 is not floating", "type")
    ctx.check(
        out.size == 2 and out.max == float(np.float32(3.3895314e38)),
        f"bfloat16 size {out.size}, max {out.max}",
        "precision",
    )
    ctx.check(tf.dtypes.as_dtype("int8").max == 127, "int8 max is not 127", "type")


@case("unknown-name-raises")
def unknown(ctx):
    import tensorflow as tf

    out = ctx.measure(raises(lambda: tf.dtypes.as_dtype("float33"), TypeError))
    ctx.check(out == "TypeError", f"as_dtype('float33') raised {out}", "other")


def _numpy_type(tf, dtype):
    # bfloat16 has no NumPy dtype of its own: TensorFlow's (ml_dtypes') stands in.
    return tf.bfloat16.as_numpy_dtype if dtype == "bfloat16" else np.dtype(dtype)


# Every dtype from each of as_dtype's argument forms (its name, its NumPy dtype, its
# DataType enum value, a DType), with the properties a caller reads: size, kind flags,
# the limits (as NumPy's), the real dtype of a complex; new names, so the cases above keep
# their ids.
@sweep("{dtype}-from-{form}-sweep", dtype=EVERY_DTYPE, form=["name", "numpy", "enum", "dtype"])
def as_dtype_forms(ctx, dtype, form):
    import tensorflow as tf

    source = {
        "name": dtype,
        "numpy": _numpy_type(tf, dtype),
        "enum": getattr(tf, dtype).as_datatype_enum,
        "dtype": getattr(tf, dtype),
    }[form]
    out = ctx.measure(tf.dtypes.as_dtype, source)
    ctx.check(out.name == dtype, f"as_dtype({source!r}) is {out.name}", "type")
    host = _numpy_type(tf, dtype)
    ctx.check(out.size == np.dtype(host).itemsize, f"size {out.size}", "type")
    kind = np.dtype(host).kind if dtype != "bfloat16" else "f"
    flags = (out.is_floating, out.is_complex, out.is_integer, out.is_unsigned, out.is_bool)
    want = (kind == "f", kind == "c", kind in "iu", kind == "u", kind == "b")
    ctx.check(flags == want, f"(floating, complex, integer, unsigned, bool) = {flags}", "type")
    if kind in "iu":
        info = np.iinfo(host)
        ctx.check(
            (out.min, out.max) == (info.min, info.max), f"limits {out.min}, {out.max}", "type"
        )
    elif kind == "f" and dtype != "bfloat16":
        info = np.finfo(host)
        ctx.check(out.max == float(info.max), f"max {out.max}", "type")
    elif kind == "c":
        real = {"complex64": "float32", "complex128": "float64"}[dtype]
        ctx.check(out.real_dtype.name == real, f"real dtype {out.real_dtype.name}", "type")


@case("string-and-resource-forms")
def other_types(ctx):
    import tensorflow as tf

    out = ctx.measure(lambda: (tf.dtypes.as_dtype(np.bytes_), tf.dtypes.as_dtype("resource")))
    ctx.check(out == (tf.string, tf.resource), f"bytes/resource gave {out}", "type")


# The study's other kind of path here: the documented errors for values that name no dtype
# (an unknown name, an int that is no enum value: exact type and message). New names; the
# cases above keep their ids.
@sweep("error-{form}", form=["unknown-name", "unknown-enum"])
def as_dtype_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    value = "floaty" if form == "unknown-name" else 12345
    check_raises(
        ctx,
        lambda: tf.dtypes.as_dtype(value),
        TypeError,
        rf"Cannot convert the argument `type_value`: '?{value}'? to a TensorFlow DType",
    )
