"""jax.numpy.triu_indices: upper-triangle indices for n, offsets k, rectangular m."""

import numpy as np
from _jaxhelp import MODES

from portbench_runner.api import case, sweep


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


# triu_indices takes no dtype (only sizes and an offset): its forms, eager and under
# jax.jit (sizes are static Python ints there), against numpy.triu_indices; new names, so the
# cases above keep their ids.
FORMS = {
    "square-k1": (6, 1, None),
    "square-k-minus2": (6, -2, None),
    "wide-k-minus1": (3, -1, 8),
    "tall-k2": (8, 2, 3),
    "n0": (0, 0, None),
    "k-past-end": (4, 5, None),
}


@sweep(
    "{form}-{mode}-sweep",
    form=("square-k1", "square-k-minus2", "wide-k-minus1", "tall-k2", "n0", "k-past-end"),
    mode=MODES,
)
def triu_indices_forms(ctx, form, mode):
    import jax.numpy as jnp

    n, k, m = FORMS[form]
    with ctx.on_device():
        rows, cols = ctx.measure(ctx.in_mode(mode, lambda: jnp.triu_indices(n, k, m)))
    want_rows, want_cols = np.triu_indices(n, k, m)
    ctx.check_equal(rows, want_rows)
    ctx.check_equal(cols, want_cols)


# The study's other kinds of paths: the documented errors for a bad n (traced under jax.jit,
# negative: exact type and message), and index forms of the indices it returns (reading the
# triangle, and scattering into it with .at[].set, eager and under jax.jit). New names; the
# cases above keep their ids.
@sweep("error-{form}", form=["traced-n", "negative-n"])
def triu_indices_errors(ctx, form):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    if form == "traced-n":
        f = jax.jit(jnp.triu_indices)
        check_raises(
            ctx,
            lambda: f(3),
            jax.errors.ConcretizationTypeError,
            r"n argument of jnp\.triu_indices",
        )
    else:
        check_raises(
            ctx, lambda: jnp.triu_indices(-1), TypeError, r"must have every element be nonnegative"
        )


@sweep("index-{form}-{mode}-sweep", form=["gather", "scatter-set"], mode=MODES)
def triu_indices_index_forms(ctx, form, mode):
    import jax.numpy as jnp

    x = np.arange(25, dtype="float32").reshape(5, 5)
    rows, cols = np.triu_indices(5, 1)

    def use(v):
        idx = jnp.triu_indices(5, 1)
        return v[idx] if form == "gather" else v.at[idx].set(-1.0)

    out = ctx.measure(ctx.in_mode(mode, use), ctx.put(x))
    if form == "gather":
        expected = x[rows, cols]
    else:
        expected = x.copy()
        expected[rows, cols] = -1.0
    ctx.check_equal(out, expected)
