"""jax.tree_util.Partial: a partial application that is a pytree and passes through jit."""

import numpy as np

from portbench_runner.api import case


@case("call-with-bound-args")
def partial_call(ctx):
    import jax.numpy as jnp
    from jax.tree_util import Partial

    scale = Partial(jnp.multiply, ctx.put(np.float32(3.0)))
    out = ctx.measure(scale, ctx.put(np.arange(4, dtype="float32")))
    ctx.check_equal(out, [0.0, 3.0, 6.0, 9.0])


@case("through-jit-as-argument")
def partial_jit(ctx):
    import jax
    import jax.numpy as jnp
    from jax.tree_util import Partial

    @jax.jit
    def apply(fn, x):
        return fn(x)

    shift = Partial(jnp.add, ctx.put(np.float32(1.5)))
    ctx.check_equal(
        ctx.measure(apply, shift, ctx.put(np.zeros(3, dtype="float32"))), [1.5, 1.5, 1.5]
    )


@case("leaves-are-the-bound-arrays")
def partial_pytree(ctx):
    import jax
    import jax.numpy as jnp
    from jax.tree_util import Partial

    p = Partial(jnp.add, ctx.put(np.ones(2)))
    leaves = ctx.measure(jax.tree_util.tree_leaves, p)
    ctx.check(len(leaves) == 1, f"{len(leaves)} leaves, expected the one bound array")
    ctx.check_equal(leaves[0], [1.0, 1.0])
