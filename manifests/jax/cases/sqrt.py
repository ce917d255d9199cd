"""jax.numpy.sqrt: elementwise square root, eager and jitted, across dtypes and shapes."""

import numpy as np

from portbench_runner.api import case


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
