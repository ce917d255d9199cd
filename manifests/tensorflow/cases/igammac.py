"""tf.math.igammac: the regularized upper incomplete gamma Q(a, x), checked on closed forms.

Q(n, x) = exp(-x) * sum_{k<n} x^k / k! for integer n; Q(1/2, x) = erfc(sqrt(x)).
"""

import math

import numpy as np
from tfhelp import by_mode

from portbench_runner.api import case


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
