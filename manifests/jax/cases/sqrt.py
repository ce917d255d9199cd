"""jax.numpy.sqrt: elementwise square root, eager and jitted, across dtypes and shapes."""

import numpy as np
from _jaxhelp import COMPLEX, FEW_INTS, FLOATS, FLOATS_32_64, GRAD_FLOATS, MODES

from portbench_runner.api import case, sweep


@case("float32-eager", dtype="float32", shape=(1024,))
@case("float64-eager", dtype="float64", shape=(1024,))
@case("bfloat16-eager", dtype="bfloat16", shape=(1024,))
@case("float32-jit", dtype="float32", shape=(1024,), jit=True)
@case("float32-large-jit", dtype="float32", shape=(1_000_000,), jit=True)
@case("float32-empty", dtype="float32", shape=(0,))
@case("float32-scalar", dtype="float32", shape=())
def sqrt_values(ctx, dtype, shape, jit=False):
    import jax.numpy as jnp

    x = ctx.rng.uniform(0.0, 100.0, size=shape).astype("float32" if dtype == "bfloat16" else dtype)
    expected = np.sqrt(x.astype("float64"))
    fn = ctx.compiled(jnp.sqrt) if jit else jnp.sqrt
    out = ctx.measure(fn, ctx.put(x, dtype=dtype))
    ctx.check_close(out, expected, dtype=dtype)


@case("negative-is-nan")
def sqrt_negative(ctx):
    import jax.numpy as jnp

    out = ctx.measure(jnp.sqrt, ctx.put(np.array([-1.0, 4.0], dtype="float32")))
    values = ctx.to_numpy(out)
    ctx.check(np.isnan(values[0]) and values[1] == 2.0, f"sqrt([-1, 4]) gave {values}")


@case("grad-float32")
def sqrt_grad(ctx):
    import jax
    import jax.numpy as jnp

    x = ctx.rng.uniform(0.5, 10.0, size=(256,)).astype("float32")
    grad = jax.grad(lambda v: jnp.sqrt(v).sum())
    out = ctx.measure(grad, ctx.put(x))
    ctx.check_close(out, 0.5 / np.sqrt(x.astype("float64")), dtype="float32")


# Every dtype jnp.sqrt takes on the CPU (integers promote to a float), eager and under
# jax.jit, and its gradient in each float width; new names, so the cases above
# keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOATS + COMPLEX + FEW_INTS,
    mode=MODES,
)
def sqrt_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import INTS, swept_unary

    ints = dtype in INTS
    swept_unary(
        ctx,
        jnp.sqrt,
        np.sqrt,
        dtype,
        mode,
        lo=0 if ints else 0.1,
        hi=9 if ints else 5,
        scale=1.0,
    )


@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def sqrt_grad_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad

    swept_grad(ctx, jnp.sqrt, lambda x: 0.5 / np.sqrt(x), dtype, mode, lo=0.5, hi=5, scale=1.0)


# The study's other kinds of paths: the documented error for a bad argument (exact type and
# message), the second derivative (grad of grad, -x**-1.5 / 4) in float32 and float64, and
# jax.vmap along a leading and an inner axis, eager and under jax.jit. New names; the cases
# above keep their ids.
@case("error-list-input")
def sqrt_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    check_raises(ctx, lambda: jnp.sqrt([1.0, 4.0]), TypeError, r"sqrt requires ndarray or scalar")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def sqrt_grad2(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad2

    swept_grad2(ctx, jnp.sqrt, lambda x: -0.25 * x**-1.5, dtype, mode, lo=0.5, hi=3.0)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def sqrt_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(ctx, jnp.sqrt, np.sqrt, "float32", mode, in_axis=axis, lo=0.0, hi=9.0)
