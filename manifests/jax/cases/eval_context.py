"""jax.core.eval_context: inside a trace, computations in the context are concrete values."""

import numpy as np

from portbench_runner.api import case


def _eval_context(ctx):
    import jax

    return ctx.require("jax.core.eval_context") if hasattr(jax, "core") else ctx.skip("no jax.core")


@case("concrete-inside-jit")
def eval_context_concrete(ctx):
    import jax
    import jax.numpy as jnp

    eval_context = _eval_context(ctx)
    captured = []

    @jax.jit
    def f(x):
        with eval_context():
            constant = jnp.arange(3.0) * 2
        captured.append(constant)
        return x + constant

    out = ctx.measure(f, ctx.put(np.zeros(3)), warm=False)
    ctx.check_equal(out, [0.0, 2.0, 4.0])
    ctx.check(
        isinstance(captured[0], jax.Array),
        f"the value in eval_context was {type(captured[0]).__name__}",
    )


@case("plain-eager-use")
def eval_context_eager(ctx):
    import jax.numpy as jnp

    eval_context = _eval_context(ctx)

    def run():
        with eval_context():
            return jnp.ones(4) * 3

    ctx.check_equal(ctx.measure(run), [3.0, 3.0, 3.0, 3.0])


@case("nested-contexts")
def eval_context_nested(ctx):
    import jax.numpy as jnp

    eval_context = _eval_context(ctx)

    def run():
        with eval_context(), eval_context():
            return jnp.float32(2) ** 3

    ctx.check_equal(ctx.measure(run), 8.0)
