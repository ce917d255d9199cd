"""jax.numpy.isscalar: Python and NumPy scalars, 0-d and n-d arrays, under jit tracing."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES, np_dtype

from portbench_runner.api import case, sweep


def _zero_d_is_scalar(ctx):
    """JAX now documents 0-d arrays (and tracers) as scalars, for JIT invariance; releases
    up to 0.4.13 followed NumPy (False for 0-d arrays). The case checks each release
    against its own documented behaviour."""
    return ctx.version_at_least("0.4.14")


@case("python-float", value=1.5, expected=True)
@case("python-int", value=3, expected=True)
@case("numpy-scalar", value=np.float32(2.0), expected=True)
@case("python-list", value=[1.0], expected=False)
def isscalar_values(ctx, value, expected):
    import jax.numpy as jnp

    ctx.check_equal(ctx.measure(jnp.isscalar, value), expected)


@case("device-0d-array")
@case("device-1d-array", shape=(3,))
def isscalar_arrays(ctx, shape=()):
    import jax.numpy as jnp

    x = ctx.put(np.zeros(shape, dtype="float32"))
    ctx.check_equal(ctx.measure(jnp.isscalar, x), shape == () and _zero_d_is_scalar(ctx))


@case("traced-inside-jit")
def isscalar_traced(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda x: jnp.where(jnp.isscalar(x), 1.0, 0.0))
    expected = 1.0 if _zero_d_is_scalar(ctx) else 0.0
    ctx.check_close(ctx.measure(f, ctx.put(np.float32(5.0))), expected, dtype="float32")


# isscalar of every dtype's values: a NumPy scalar (True), a device 0-d array (True from
# 0.4.14, False before, as each release documents) and that 0-d array traced inside
# jax.jit (the same); new names, so the cases above keep their ids.
@sweep("{dtype}-{form}-sweep", dtype=EVERY_DTYPE, form=("numpy-scalar", "device-0d", "traced-0d"))
def isscalar_dtypes(ctx, dtype, form):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import draw

    value = draw(ctx, (), dtype, 0, 9)
    if form == "numpy-scalar":
        scalar = np_dtype(dtype).type(value)
        ctx.check_equal(ctx.measure(jnp.isscalar, scalar), True)
        return
    arr = ctx.put(value, dtype=dtype)
    expected = _zero_d_is_scalar(ctx)
    if form == "device-0d":
        ctx.check_equal(ctx.measure(jnp.isscalar, arr), expected)
        return
    seen = []

    @jax.jit
    def traced(v):
        seen.append(jnp.isscalar(v))
        return v

    ctx.measure(traced, arr, warm=False)
    ctx.check(seen == [expected], f"isscalar of a traced 0-d {dtype} gave {seen}, not {expected}")


# The study's other kind of path here: isscalar under jax.vmap (each example of a batch of
# vectors is a 0-d traced value inside the mapped function, a scalar from 0.4.14 on; of a
# batch of matrices, a vector, not one), eager and under jax.jit. isscalar answers every
# value with a bool (None, lists and strings included), so it has no error path. New names;
# the cases above keep their ids.
@sweep("vmap-{rank}-{mode}-sweep", rank=["vector-batch", "matrix-batch"], mode=MODES)
def isscalar_vmap(ctx, rank, mode):
    import jax
    import jax.numpy as jnp

    answers = []

    def f(v):
        answers.append(bool(jnp.isscalar(v)))
        return v * 2

    shape = (6,) if rank == "vector-batch" else (6, 3)
    ctx.measure(
        ctx.in_mode(mode, jax.vmap(f)), ctx.put(np.ones(shape, dtype="float32")), warm=False
    )
    # One example of a vector batch is a 0-d traced value: a scalar where the release says
    # 0-d arrays are (0.4.14 on, see _zero_d_is_scalar).
    want = rank == "vector-batch" and _zero_d_is_scalar(ctx)
    ctx.check(
        answers == [want], f"isscalar of one example gave {answers}, expected [{want}]", "other"
    )
