"""tf.test.TestCase.assertEqual: equal values pass, unequal raise the failure exception with msg."""

from tfhelp import raises

from portbench_runner.api import case


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
