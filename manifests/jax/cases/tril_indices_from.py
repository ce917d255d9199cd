"""jax.numpy.tril_indices_from: indices of the lower triangle of a given array, offsets k."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

from portbench_runner.api import case, sweep


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


# tril_indices_from of an array of every dtype (only its shape matters), eager and under
# jax.jit (the shape is static there), with an offset; new names, so the cases above keep
# their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def tril_indices_from_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import draw, placed

    x, _ = placed(ctx, draw(ctx, (5, 7), dtype, 0, 9), dtype)
    rows, cols = ctx.measure(ctx.in_mode(mode, lambda v: jnp.tril_indices_from(v, k=1)), x)
    want_rows, want_cols = np.tril_indices(5, 1, 7)
    ctx.check_equal(rows, want_rows)
    ctx.check_equal(cols, want_cols)


# The study's other kind of path here: the documented error for an input that is not 2-d
# (exact type and message per release: 0.4.31 added the check; before it the shape unpacking
# failed). New name; the cases above keep their ids.
@case("error-one-d-input")
def tril_indices_from_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises, for_release

    x = ctx.put(np.ones(5, dtype="float32"))
    exc, pattern = for_release(
        ctx,
        (
            ("0.4", (IndexError, r"tuple index out of range")),
            ("0.4.31", (ValueError, r"Only 2-D inputs are accepted")),
        ),
    )
    check_raises(ctx, lambda: jnp.tril_indices_from(x), exc, pattern)
