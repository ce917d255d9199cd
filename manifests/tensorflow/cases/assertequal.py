"""tf.test.TestCase.assertEqual: equal values pass, unequal raise the failure exception with msg."""

from tfhelp import EVERY_DTYPE, raises

from portbench_runner.api import case, sweep


def _testcase():
    import tensorflow as tf

    return tf.test.TestCase()


@case("equal-scalars", first=3, second=3)
@case("equal-nested", first={"a": [1, (2, 3)]}, second={"a": [1, (2, 3)]})
@case("equal-strings", first="portbench", second="portbench")
@case("int-equals-float", first=2, second=2.0)
def equal_values(ctx, first, second):
    tc = _testcase()
    out = ctx.measure(raises(lambda: tc.assertEqual(first, second), AssertionError))
    ctx.check(out is None, f"assertEqual({first!r}, {second!r}) raised {out}", "other")


@case("unequal-raises", first=[1, 2], second=[1, 3])
@case("unequal-types-raise", first="1", second=1)
def unequal_values(ctx, first, second):
    tc = _testcase()
    out = ctx.measure(raises(lambda: tc.assertEqual(first, second), AssertionError))
    ctx.check(out is not None, f"assertEqual({first!r}, {second!r}) raised nothing", "other")


@case("message-is-kept")
def message(ctx):
    tc = _testcase()
    seen = []

    def call():
        try:
            tc.assertEqual(1, 2, msg="portbench-marker")
        except AssertionError as exc:
            seen.append(str(exc))

    ctx.measure(call, warm=False)
    ctx.check(seen and "portbench-marker" in seen[0], f"failure message {seen}", "other")


@case("tensor-values")
def tensors(ctx):
    import numpy as np

    tc = _testcase()
    a = ctx.put(np.array(4, dtype="int32"))
    out = ctx.measure(raises(lambda: tc.assertEqual(int(a), 4), AssertionError))
    ctx.check(out is None, f"assertEqual on a converted tensor raised {out}", "other")


# A scalar of every dtype, read from a tensor, against the Python value it holds (equal)
# and against another value (unequal): assertEqual compares with ==, which NumPy scalars,
# bfloat16 (ml_dtypes) and complex define against Python numbers. New names.
@sweep("{dtype}-scalar-{outcome}-sweep", dtype=EVERY_DTYPE, outcome=["equal", "unequal"])
def scalar_dtypes(ctx, dtype, outcome):
    import numpy as np

    tc = _testcase()
    value = True if dtype == "bool" else 3
    other = False if dtype == "bool" else 4
    # The tensor's own NumPy scalar (bfloat16: the ml_dtypes scalar, not a float32 copy).
    scalar = ctx.put(np.array(value), dtype=dtype).numpy()
    second = value if outcome == "equal" else other
    out = ctx.measure(raises(lambda: tc.assertEqual(scalar, second), AssertionError))
    if outcome == "equal":
        ctx.check(out is None, f"{dtype} {scalar!r} == {second!r} raised {out}", "other")
    else:
        ctx.check(
            out == "AssertionError", f"{dtype} {scalar!r} vs {second!r} raised {out}", "other"
        )


@case("dict-order-insensitive")
def dict_order(ctx):
    tc = _testcase()
    out = ctx.measure(
        raises(lambda: tc.assertEqual({"a": 1, "b": 2}, {"b": 2, "a": 1}), AssertionError)
    )
    ctx.check(out is None, f"dicts in another order raised {out}", "other")


@case("tuple-vs-list-unequal")
def tuple_list(ctx):
    tc = _testcase()
    out = ctx.measure(raises(lambda: tc.assertEqual((1, 2), [1, 2]), AssertionError))
    ctx.check(out == "AssertionError", f"(1, 2) vs [1, 2] raised {out}", "other")


@case("nan-unequal-to-itself")
def nan(ctx):
    tc = _testcase()
    a, b = float("nan"), float("nan")  # two NaN objects: == is False and identity differs
    out = ctx.measure(raises(lambda: tc.assertEqual(a, b), AssertionError))
    ctx.check(out == "AssertionError", f"nan vs nan raised {out}", "other")


# The study's other kinds of paths: the documented failure as an error path (unequal values
# raise exactly AssertionError with "first != second"), and the full grid of msg (none,
# given) x longMessage (True, False): the standard message, the msg appended to it, or the
# msg alone. New names; the cases above keep their ids.
@case("error-unequal")
def assert_equal_error(ctx):
    from tfhelp import check_raises

    tc = _testcase()
    check_raises(ctx, lambda: tc.assertEqual(1, 2), AssertionError, r"^1 != 2$")


@sweep("flags-msg-{msg}-long-{long}-sweep", msg=["none", "given"], long=["long", "short"])
def assert_equal_flags(ctx, msg, long):
    tc = _testcase()
    tc.longMessage = long == "long"
    kw = {"msg": "portbench-context"} if msg == "given" else {}

    def attempt():
        try:
            tc.assertEqual([1, 2], [1, 3], **kw)
        except AssertionError as exc:
            return str(exc)
        return None

    text = ctx.measure(attempt)
    ctx.check(text is not None, "unequal lists raised nothing", "other")
    standard = "[1, 2] != [1, 3]" in text
    given = "portbench-context" in text
    want = {
        ("none", "long"): (True, False),
        ("none", "short"): (True, False),
        ("given", "long"): (True, True),
        ("given", "short"): (False, True),
    }[(msg, long)]
    ctx.check(
        (standard, given) == want,
        f"message {text!r}: (standard, msg) {(standard, given)}, expected {want}",
        "other",
    )
