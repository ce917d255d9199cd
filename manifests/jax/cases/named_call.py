"""jax.named_call: wraps a function under a name; values, gradients and jaxpr names."""

import numpy as np
from _jaxhelp import ALL_NUMERIC, FLOATS_32_64, GRAD_FLOATS, MODES

from portbench_runner.api import case, sweep


@case("values-unchanged")
@case("values-unchanged-jit", jit=True)
def named_call_values(ctx, jit=False):
    import jax
    import jax.numpy as jnp

    f = jax.named_call(lambda x: jnp.sin(x) * 2, name="double_sin")
    f = jax.jit(f) if jit else f
    x = np.linspace(-1, 1, 64).astype("float32")
    ctx.check_close(
        ctx.measure(f, ctx.put(x)), 2 * np.sin(x.astype("float64")), dtype="float32", rtol=2e-5
    )


@case("grad-through-named-call")
def named_call_grad(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.named_call(lambda x: jnp.sum(x**3), name="cube")
    x = np.array([1.0, 2.0], dtype="float32")
    ctx.check_close(ctx.measure(jax.grad(f), ctx.put(x)), 3 * x**2, dtype="float32")


@case("name-appears-in-jaxpr")
def named_call_name(ctx):
    import jax

    f = jax.named_call(lambda x: x + 1, name="my_named_block")
    x = ctx.put(np.float32(1.0))
    compiled = ctx.measure(lambda v: jax.jit(f).lower(v).compile(), x, warm=False)
    # The name scopes the compiled operations' metadata (op_name=".../my_named_block/add").
    text = compiled.as_text()
    ctx.check("my_named_block" in text, "the name is missing from the compiled program's metadata")


# The wrapped function's values in every numeric dtype on the CPU (x * 2 + 1: exact for
# the small values drawn), eager and under jax.jit; new names, so the cases above keep
# their ids.
@sweep("{dtype}-{mode}-sweep", dtype=ALL_NUMERIC, mode=MODES)
def named_call_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import swept_exact

    f = jax.named_call(lambda x: x * 2 + 1, name="twice_plus_one")
    swept_exact(ctx, f, lambda v: v * 2 + 1, dtype, mode, lo=0, hi=9)


# Gradients pass through the named call in each float width: d/dx sum(x**3) = 3x**2.
@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def named_call_grad_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import swept_grad

    swept_grad(
        ctx,
        jax.named_call(lambda x: x**3, name="cube"),
        lambda x: 3 * x**2,
        dtype,
        mode,
        lo=-2,
        hi=2,
        scale=4.0,
    )


# The study's other kinds of paths: the second derivative through a named call (grad of grad
# of sin(x) * 2 is -2 sin(x)) in float32 and float64, and jax.vmap of a named call along a
# leading and an inner axis, eager and under jax.jit. named_call takes any name and any
# callable without checking either (0.4.13 and 0.10.2), so it has no error path. New names;
# the cases above keep their ids.
@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def named_call_grad2(ctx, dtype, mode):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import swept_grad2

    f = jax.named_call(lambda x: jnp.sin(x) * 2, name="double_sin")
    swept_grad2(ctx, f, lambda x: -2 * np.sin(x), dtype, mode)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def named_call_vmap_axes(ctx, axis, mode):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    f = jax.named_call(lambda x: jnp.sum(jnp.sin(x) * 2, axis=-1), name="row_sum")
    swept_vmap(
        ctx, f, lambda x: np.sum(np.sin(x) * 2, axis=-1), "float32", mode, in_axis=axis, scale=5.0
    )
