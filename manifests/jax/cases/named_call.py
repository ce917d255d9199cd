"""jax.named_call: wraps a function under a name; values, gradients and jaxpr names."""

import numpy as np

from portbench_runner.api import case


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
