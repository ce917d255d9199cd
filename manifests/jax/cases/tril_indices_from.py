"""jax.numpy.tril_indices_from: indices of the lower triangle of a given array, offsets k."""

import numpy as np

from portbench_runner.api import case


@case("square-k0", shape=(6, 6), k=0)
@case("square-k1", shape=(6, 6), k=1)
@case("square-k-minus2", shape=(6, 6), k=-2)
@case("wide", shape=(4, 7), k=0)
@case("large", shape=(1000, 1000), k=0)
def tril_indices_from_values(ctx, shape, k):
    import jax.numpy as jnp

    x = ctx.put(np.zeros(shape, dtype="float32"))
    rows, cols = ctx.measure(jnp.tril_indices_from, x, k=k)
    want_rows, want_cols = np.tril_indices_from(np.zeros(shape), k=k)
    ctx.check_equal(rows, want_rows)
    ctx.check_equal(cols, want_cols)


@case("indices-select-the-triangle")
def tril_indices_from_gather(ctx):
    import jax.numpy as jnp

    a = np.arange(16, dtype="float32").reshape(4, 4)
    arr = ctx.put(a)
    idx = ctx.measure(jnp.tril_indices_from, arr)
    ctx.check_equal(arr[idx], a[np.tril_indices(4)])
