"""tf.math.igammac: the regularized upper incomplete gamma Q(a, x), checked on closed forms.

Q(n, x) = exp(-x) * sum_{k<n} x^k / k! for integer n; Q(1/2, x) = erfc(sqrt(x)).
"""

import math

import numpy as np
from tfhelp import GRAD2_FLOATS, MODES, by_mode

from portbench_runner.api import case, sweep


def _q_integer(a, x):
    total = np.zeros_like(x)
    term = np.ones_like(x)
    for k in range(int(a)):
        if k:
            term = term * x / k
        total = total + term
    return np.exp(-x) * total


@case("integer-a-float32", dtype="float32", a=3.0)
@case("integer-a-float64-graph", dtype="float64", a=5.0, mode="graph")
@case("half-a-float64", dtype="float64", a=0.5)
@case("integer-a-xla", dtype="float32", a=2.0, mode="xla")
@case("integer-a-large", dtype="float32", a=4.0, size=1_000_000)
def igammac_values(ctx, dtype, a, mode="eager", size=512):
    import tensorflow as tf

    x = ctx.rng.uniform(0.01, 20.0, size=(size,)).astype(dtype)
    xs = x.astype("float64")
    expected = np.array([math.erfc(math.sqrt(v)) for v in xs]) if a == 0.5 else _q_integer(a, xs)
    fn = by_mode(ctx, tf.math.igammac, mode)
    out = ctx.measure(fn, ctx.put(np.full_like(x, a)), ctx.put(x))
    tol = 2e-5 if dtype == "float32" else 1e-11
    ctx.check_close(out, expected, rtol=tol * 10, atol=tol)


@case("edges-zero-and-inf")
def igammac_edges(ctx):
    import tensorflow as tf

    x = np.array([0.0, np.inf, 1.0], dtype="float32")
    a = np.array([2.0, 2.0, -1.0], dtype="float32")  # a <= 0 is outside the domain: NaN
    out = ctx.measure(tf.math.igammac, ctx.put(a), ctx.put(x))
    ctx.check_close(out, np.array([1.0, 0.0, np.nan]), dtype="float32")


@case("broadcast-a-vector")
def igammac_broadcast(ctx):
    import tensorflow as tf

    a = np.array([[1.0], [2.0], [3.0]])
    x = ctx.rng.uniform(0.1, 5.0, size=(1, 7))
    out = ctx.measure(tf.math.igammac, ctx.put(a), ctx.put(x))
    expected = np.vstack([_q_integer(n, x[0]) for n in (1, 2, 3)])
    ctx.check_close(out, expected, dtype="float64")


@case("gradient-wrt-x")
def igammac_grad(ctx):
    import tensorflow as tf

    a_val = 3.0
    x_np = ctx.rng.uniform(0.5, 6.0, size=(32,))
    a = ctx.put(np.full(32, a_val))
    x = ctx.put(x_np)

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.math.igammac(a, x))
        return tape.gradient(y, x)

    out = ctx.measure(grad)
    # dQ/dx = -x^(a-1) exp(-x) / Gamma(a)
    ctx.check_close(
        out, -(x_np ** (a_val - 1)) * np.exp(-x_np) / math.gamma(a_val), dtype="float64"
    )


def _q(a, x):
    """Q(a, x) for integer and half-integer a > 0 (closed forms, float64)."""
    if float(a).is_integer():
        return _q_integer(a, x)
    # Q(n + 1/2, x) = erfc(sqrt x) + exp(-x) * sum_{k=1..n} x^(k - 1/2) / Gamma(k + 1/2)
    total = np.array([math.erfc(math.sqrt(v)) for v in x])
    for k in range(1, int(a - 0.5) + 1):
        total = total + np.exp(-x) * x ** (k - 0.5) / math.gamma(k + 0.5)
    return total


A_VALUES = [0.5, 1.0, 1.5, 2.0, 3.5, 6.0]


# igammac's CPU kernels are float32 and float64 (its documented dtypes; float16/bfloat16
# have no eager CPU kernel), each in eager, tf.function and XLA, with a column of shapes a
# broadcast against a row of x; new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=["float32", "float64"], mode=MODES)
def igammac_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype

    a = np.array(A_VALUES, dtype=dtype)[:, None]
    x = ctx.rng.uniform(0.05, 12.0, size=(1, 40)).astype(dtype)
    out = ctx.measure(by_mode(ctx, tf.math.igammac, mode), ctx.put(a), ctx.put(x))
    check_dtype(ctx, out, dtype)
    xs = x[0].astype("float64")
    expected = np.vstack([_q(v, xs) for v in A_VALUES])
    tol = 2e-5 if dtype == "float32" else 1e-12
    ctx.check_close(out, expected, rtol=tol * 10, atol=tol)


# dQ/dx = -x^(a-1) exp(-x) / Gamma(a), for several a, in each dtype and mode.
@sweep("grad-x-{dtype}-{mode}-sweep", dtype=["float32", "float64"], mode=MODES)
def igammac_grad_dtypes(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import check_dtype

    a_np = np.repeat(np.array(A_VALUES), 6).astype(dtype)
    x_np = ctx.rng.uniform(0.3, 8.0, size=a_np.shape).astype(dtype)
    a, x = ctx.put(a_np), ctx.put(x_np)

    def grad(s, t):
        with tf.GradientTape() as tape:
            tape.watch(t)
            y = tf.reduce_sum(tf.math.igammac(s, t))
        return tape.gradient(y, t)

    out = ctx.measure(by_mode(ctx, grad, mode), a, x)
    check_dtype(ctx, out, dtype)
    av, xv = a_np.astype("float64"), x_np.astype("float64")
    gammas = np.array([math.gamma(v) for v in av])
    expected = -(xv ** (av - 1)) * np.exp(-xv) / gammas
    tol = 1e-4 if dtype == "float32" else 1e-10
    ctx.check_close(out, expected, rtol=tol, atol=tol)


@case("empty-and-scalar")
def igammac_shapes(ctx):
    import tensorflow as tf

    out = ctx.measure(
        lambda: (
            tf.math.igammac(ctx.put(np.zeros((0, 3))), ctx.put(np.ones(3))),
            tf.math.igammac(ctx.put(np.float64(1.0)), ctx.put(np.float64(2.0))),
        )
    )
    ctx.check(tuple(out[0].shape) == (0, 3), f"empty broadcast gave {tuple(out[0].shape)}", "other")
    ctx.check_close(out[1], np.exp(-2.0), dtype="float64")


# The study's other kinds of paths: the documented errors for bad operands (integers, two
# float widths: exact type and message), the second derivative in x through nested
# GradientTapes (x**(a-2) e**-x (x - a + 1) / Gamma(a)) in float32 and float64, and
# tf.vectorized_map of igammac, eager, in a tf.function and under XLA. New names; the cases
# above keep their ids.
@sweep("error-{form}", form=["integer-operands", "mixed-dtypes"])
def igammac_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    if form == "integer-operands":
        i = ctx.put(np.ones(2, dtype="int32"))
        check_raises(
            ctx,
            lambda: tf.math.igammac(i, i),
            tf.errors.InvalidArgumentError,
            r"Value for attr 'T' of int32 is not in the list of allowed values",
        )
    else:
        a, x = ctx.put(np.ones(2, dtype="float32")), ctx.put(np.ones(2, dtype="float64"))
        check_raises(
            ctx,
            lambda: tf.math.igammac(a, x),
            tf.errors.InvalidArgumentError,
            r"cannot compute Igammac as input #1",
        )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=GRAD2_FLOATS, mode=MODES)
def igammac_grad2(ctx, dtype, mode):
    import tensorflow as tf
    from tfhelp import swept_grad2

    a = 3.0

    def d2(x):
        return x ** (a - 2) * np.exp(-x) * (x - a + 1) / math.gamma(a)

    swept_grad2(
        ctx,
        lambda t: tf.math.igammac(tf.constant(a, t.dtype), t),
        d2,
        dtype,
        mode,
        lo=0.2,
        hi=8.0,
        scale=5.0,
    )


@sweep("vectorized-map-{mode}-sweep", mode=MODES)
def igammac_vectorized_map(ctx, mode):
    import tensorflow as tf
    from tfhelp import swept_vectorized_map

    swept_vectorized_map(
        ctx,
        lambda t: tf.math.igammac(tf.constant(2.0), t),
        lambda x: _q_integer(2.0, x),
        "float32",
        mode,
        lo=0.05,
        hi=8.0,
        scale=5.0,
    )
