"""jax.numpy.array: from lists, NumPy arrays (copied), nested sequences, dtypes, scalars."""

import numpy as np

from portbench_runner.api import case


@case("from-list")
@case("from-nested-list", value=[[1.5, 2.5], [3.5, 4.5]])
@case("from-scalar", value=3.25)
@case("from-bools", value=[True, False, True])
def array_from_python(ctx, value=(1, 2, 3, 4)):
    import jax.numpy as jnp

    with ctx.on_device():
        out = ctx.measure(jnp.array, list(value) if isinstance(value, tuple) else value)
    ctx.check_equal(out, np.array(value))


@case("from-numpy-float32", dtype="float32")
@case("from-numpy-float64", dtype="float64")
@case("to-bfloat16", dtype="bfloat16")
@case("large", dtype="float32", n=1_000_000)
def array_from_numpy(ctx, dtype, n=4096):
    import jax.numpy as jnp

    x = ctx.rng.standard_normal(n).astype("float32" if dtype == "bfloat16" else dtype)
    with ctx.on_device():
        out = ctx.measure(jnp.array, x, dtype=getattr(jnp, dtype))
    ctx.check_close(out, x.astype("float64"), dtype=dtype)


@case("copy-is-independent")
def array_copies(ctx):
    import jax.numpy as jnp

    x = np.arange(6, dtype="float32")
    with ctx.on_device():
        out = ctx.measure(jnp.array, x, warm=False)
    x[0] = 100.0
    ctx.check(
        float(ctx.to_numpy(out)[0]) == 0.0,
        "jnp.array shares memory with the NumPy input",
        category="other",
    )
