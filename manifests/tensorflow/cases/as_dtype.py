"""tf.dtypes.as_dtype: from names, NumPy types, enum values and DTypes; properties; bad input raises."""

import numpy as np
from tfhelp import raises

from portbench_runner.api import case

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
