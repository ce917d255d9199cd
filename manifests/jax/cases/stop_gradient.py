"""jax.lax.stop_gradient: identity forward, zero gradient, inside jit and nested structures."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, GRAD_FLOATS, MODES

from portbench_runner.api import case, sweep


@case("forward-is-identity")
@case("forward-is-identity-float64", dtype="float64")
def stop_gradient_forward(ctx, dtype="float32"):
    import jax

    x = ctx.rng.standard_normal(1024).astype(dtype)
    ctx.check_equal(ctx.measure(jax.lax.stop_gradient, ctx.put(x)), x)


@case("blocks-gradient")
@case("blocks-gradient-jit", jit=True)
def stop_gradient_grad(ctx, jit=False):
    import jax
    import jax.numpy as jnp

    def loss(v):
        return jnp.sum(v**2 + jax.lax.stop_gradient(v**3))

    g = jax.grad(loss)
    x = np.linspace(-2, 2, 64).astype("float32")
    out = ctx.measure(ctx.compiled(g) if jit else g, ctx.put(x))
    ctx.check_close(out, 2 * x.astype("float64"), dtype="float32")


@case("pytree-input")
def stop_gradient_tree(ctx):
    import jax

    tree = {
        "a": ctx.put(np.ones(3, dtype="float32")),
        "b": [ctx.put(np.arange(2, dtype="float32"))],
    }
    out = ctx.measure(jax.lax.stop_gradient, tree)
    ctx.check_equal(out["b"][0], [0.0, 1.0])


# Every dtype lax.stop_gradient passes through on the CPU (identity: exact, dtype kept),
# eager and under jax.jit; new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def stop_gradient_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import swept_exact

    swept_exact(ctx, jax.lax.stop_gradient, lambda v: v, dtype, mode)


# In each float width the stopped term contributes nothing: d/dx sum(x*x + sg(x**3)) = 2x.
@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def stop_gradient_grad_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import swept_grad

    swept_grad(ctx, lambda x: x * x + jax.lax.stop_gradient(x**3), lambda x: 2 * x, dtype, mode)


# The study's other kinds of paths: the documented error for a bad argument (a string is not
# a JAX type: exact type and message), the second derivative (grad of grad of
# x*x + sg(x**3) is 2: the stopped term contributes at no order) in float32 and float64, and
# jax.vmap along a leading and an inner axis, eager and under jax.jit. New names; the cases
# above keep their ids.
@case("error-string-input")
def stop_gradient_error(ctx):
    from _jaxhelp import check_raises
    from jax import lax

    check_raises(ctx, lambda: lax.stop_gradient("x"), TypeError, r"is not a valid JAX type")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def stop_gradient_grad2(ctx, dtype, mode):
    from _jaxhelp import swept_grad2
    from jax import lax

    swept_grad2(
        ctx, lambda x: x * x + lax.stop_gradient(x**3), lambda x: np.full_like(x, 2.0), dtype, mode
    )


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def stop_gradient_vmap_axes(ctx, axis, mode):
    from _jaxhelp import swept_vmap
    from jax import lax

    swept_vmap(ctx, lax.stop_gradient, lambda x: x, "float32", mode, in_axis=axis)
