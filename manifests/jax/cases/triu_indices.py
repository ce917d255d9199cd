"""jax.numpy.triu_indices: upper-triangle indices for n, offsets k, rectangular m."""

import numpy as np

from portbench_runner.api import case


@case("n5-k0", n=5, k=0)
@case("n5-k2", n=5, k=2)
@case("n5-k-minus1", n=5, k=-1)
@case("n4-m7", n=4, k=0, m=7)
@case("n1", n=1, k=0)
@case("n1000", n=1000, k=0)
def triu_indices_values(ctx, n, k, m=None):
    import jax.numpy as jnp

    with ctx.on_device():
        rows, cols = ctx.measure(jnp.triu_indices, n, k, m)
    want_rows, want_cols = np.triu_indices(n, k, m)
    ctx.check_equal(rows, want_rows)
    ctx.check_equal(cols, want_cols)


@case("used-inside-jit")
def triu_indices_jit(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda a: a[jnp.triu_indices(3)])
    a = np.arange(9, dtype="float32").reshape(3, 3)
    ctx.check_equal(ctx.measure(f, ctx.put(a)), a[np.triu_indices(3)])
