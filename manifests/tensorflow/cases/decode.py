"""tf.strings.as_string, the op of the study's decode_test.py (class AsStringOpTest).

The study's row names no function: its timed region only defined a lambda calling
bytes.decode (used to read as_string's output). The test class checks as_string's
formatting options, so those are what these cases test.
"""

import numpy as np
from tfhelp import EAGER_GRAPH, EVERY_DTYPE

from portbench_runner.api import case, sweep


def _decoded(ctx, out):
    return [b.decode() for b in ctx.to_numpy(out).ravel()]


@case("int32-default")
def ints(ctx):
    import tensorflow as tf

    x = np.array([0, -5, 123456789], dtype="int32")
    out = ctx.measure(tf.strings.as_string, ctx.put(x))
    ctx.check(_decoded(ctx, out) == ["0", "-5", "123456789"], f"gave {_decoded(ctx, out)}", "other")


@case("int64-width-fill")
def width_fill(ctx):
    import tensorflow as tf

    x = np.array([7, -42, 2**40], dtype="int64")
    out = ctx.measure(tf.strings.as_string, ctx.put(x), width=5, fill="0")
    got = _decoded(ctx, out)
    ctx.check(got == ["00007", "-0042", str(2**40)], f"gave {got}", "other")


@case("float32-precision")
def precision(ctx):
    import tensorflow as tf

    x = np.array([3.14159, -0.5, 100.0], dtype="float32")
    out = ctx.measure(tf.strings.as_string, ctx.put(x), precision=2)
    ctx.check(
        _decoded(ctx, out) == ["3.14", "-0.50", "100.00"], f"gave {_decoded(ctx, out)}", "other"
    )


@case("float64-scientific")
def scientific(ctx):
    import tensorflow as tf

    x = np.array([12345.678, 0.00025])
    out = ctx.measure(tf.strings.as_string, ctx.put(x), precision=3, scientific=True)
    ctx.check(
        _decoded(ctx, out) == ["1.235e+04", "2.500e-04"], f"gave {_decoded(ctx, out)}", "other"
    )


@case("float32-shortest")
def shortest(ctx):
    import tensorflow as tf

    x = np.array([0.1, 1e-10, 123.0], dtype="float32")
    out = ctx.measure(tf.strings.as_string, ctx.put(x), shortest=True)
    ctx.check(_decoded(ctx, out) == ["0.1", "1e-10", "123"], f"gave {_decoded(ctx, out)}", "other")


@case("bool-values")
def bools(ctx):
    import tensorflow as tf

    out = ctx.measure(tf.strings.as_string, ctx.put(np.array([True, False])))
    ctx.check(_decoded(ctx, out) == ["true", "false"], f"gave {_decoded(ctx, out)}", "other")


@case("large-graph")
def large(ctx):
    import tensorflow as tf

    x = np.arange(100_000, dtype="int32").reshape(100, 1000)
    out = ctx.measure(ctx.graph(tf.strings.as_string), ctx.put(x))
    got = ctx.to_numpy(out)
    ctx.check(got.shape == (100, 1000) and got[99, 999] == b"99999", f"shape {got.shape}", "other")


def _formatted(value, dtype):
    """as_string's default format: integers in full, floats and both parts of a complex with
    six decimals (printf %f), bool as true/false."""
    if dtype == "bool":
        return "true" if value else "false"
    if dtype.startswith("complex"):
        return f"({value.real:f},{value.imag:f})"
    if dtype.startswith(("float", "bfloat")):
        return f"{value:f}"
    return str(int(value))


# Every dtype as_string formats (all numeric dtypes and bool), eager and in a tf.function
# (a string output has no XLA kernel); integers include the dtype's extremes, floats are
# quarters (exact in every float width); new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=EAGER_GRAPH)
def as_string_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import by_mode, placed

    if dtype == "bool":
        x = np.array([True, False, False, True])
    elif dtype.startswith("complex"):
        x = (ctx.rng.integers(-40, 40, 6) / 4 + 1j * ctx.rng.integers(-40, 40, 6) / 4).astype(dtype)
    elif dtype.startswith(("float", "bfloat")):
        x = (ctx.rng.integers(-400, 400, 6) / 4).astype("float32" if dtype == "bfloat16" else dtype)
    else:
        info = np.iinfo(dtype)
        x = np.array([info.min, info.max, 0, 7, info.max // 3], dtype=dtype)
    t, exact = placed(ctx, x, dtype)
    out = ctx.measure(by_mode(ctx, tf.strings.as_string, mode), t)
    got = _decoded(ctx, out)
    # Integers from the array itself (float64 would round 64-bit extremes); floats from
    # the device's values (bfloat16 rounds the quarters above 32).
    exact_ints = dtype == "bool" or dtype.startswith(("int", "uint"))
    expected = [_formatted(v, dtype) for v in (x if exact_ints else exact)]
    ctx.check(got == expected, f"gave {got}, expected {expected}", "other")


@case("empty-and-scalar")
def as_string_shapes(ctx):
    import tensorflow as tf

    out = ctx.measure(
        lambda: (
            tf.strings.as_string(ctx.put(np.zeros((0, 2), "int32"))),
            tf.strings.as_string(ctx.put(np.float64(0.5)), precision=1),
        )
    )
    ctx.check(tuple(out[0].shape) == (0, 2), f"empty gave shape {tuple(out[0].shape)}", "other")
    ctx.check(ctx.to_numpy(out[1]) == b"0.5", f"scalar gave {ctx.to_numpy(out[1])}", "other")


# The study's other kinds of paths: the documented errors for bad format options (precision
# for integers, scientific with shortest, a fill of two characters: exact type and message),
# and the full grid of as_string's float format flags (precision x notation: plain,
# scientific, shortest x width and fill: none, 12 with spaces, 12 with zeros) against
# printf's own formats. New names; the cases above keep their ids.
@sweep("error-{form}", form=["precision-for-integers", "scientific-and-shortest", "long-fill"])
def as_string_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    call, pattern = {
        "precision-for-integers": (
            lambda: tf.strings.as_string(tf.constant([1]), precision=2),
            r"precision not supported for datatype int32",
        ),
        "scientific-and-shortest": (
            lambda: tf.strings.as_string(tf.constant([1.0]), scientific=True, shortest=True),
            r"Cannot select both scientific and shortest notation",
        ),
        "long-fill": (
            lambda: tf.strings.as_string(tf.constant([1]), width=3, fill="ab"),
            r"Fill string must be one or fewer characters",
        ),
    }[form]
    check_raises(ctx, call, tf.errors.InvalidArgumentError, pattern)


@sweep(
    "flags-precision{precision}-{notation}-width-{width}-sweep",
    precision=[-1, 3],
    notation=["plain", "scientific", "shortest"],
    width=["none", "12-spaces", "12-zeros"],
)
def as_string_flags(ctx, precision, notation, width):
    import tensorflow as tf

    x = np.array([3.14159265, -2.5, 1234.5678, 0.000123], dtype="float64")
    kw = {
        "precision": precision,
        "scientific": notation == "scientific",
        "shortest": notation == "shortest",
    }
    if width != "none":
        kw.update(width=12, fill="0" if width == "12-zeros" else " ")
    out = ctx.measure(lambda t: tf.strings.as_string(t, **kw), ctx.put(x))
    # The printf format as_string builds: %[fill][width][.precision](f|e|g).
    spec = "%" + ("0" if width == "12-zeros" else "") + ("12" if width != "none" else "")
    spec += f".{precision}" if precision >= 0 else ""
    spec += {"plain": "f", "scientific": "e", "shortest": "g"}[notation]
    expected = [spec % v for v in x]
    got = _decoded(ctx, out)
    ctx.check(got == expected, f"{kw}: gave {got}, expected {expected}", "other")
