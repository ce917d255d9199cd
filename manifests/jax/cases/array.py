"""jax.numpy.array: from lists, NumPy arrays (copied), nested sequences, dtypes, scalars."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, GRAD_FLOATS, MODES, host_dtype, np_dtype

from portbench_runner.api import case, sweep


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


# Every dtype jnp.array converts to on the CPU, from a NumPy array of that dtype (bfloat16:
# from float32, rounded), eager and inside jax.jit; the values must arrive unchanged; new
# names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def array_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import draw, out_dtype

    x = draw(ctx, (5, 7), dtype, -9, 9)
    if dtype == "bfloat16":
        x = np.round(x * 4) / 4  # exact in bfloat16: the conversion must not round
    with ctx.on_device():
        out = ctx.measure(ctx.in_mode(mode, lambda v: jnp.array(v, dtype=np_dtype(dtype))), x)
    ctx.check(out_dtype(ctx, out) == dtype, f"array(dtype={dtype}) gave {out.dtype}", "type")
    ctx.check_equal(np.asarray(ctx.to_numpy(out)), np.asarray(x).astype(host_dtype(dtype)))


# jnp.array is the identity for gradients: d/dx sum(array(x) * x) = 2x.
@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def array_grad_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad

    swept_grad(ctx, lambda x: jnp.array(x) * x, lambda x: 2 * x, dtype, mode)
