"""jax.tree_util.Partial: a partial application that is a pytree and passes through jit."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

from portbench_runner.api import case, sweep


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


# A Partial binding an array of every dtype, called eager and passed as an argument into
# jax.jit (the bound array is a leaf, traced like any other); jnp.add of small values is
# exact (bool: logical or); new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def partial_dtypes(ctx, dtype, mode):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_swept, draw, placed
    from jax.tree_util import Partial

    bound, b_exact = placed(ctx, draw(ctx, (6,), dtype, 0, 9), dtype)
    x, x_exact = placed(ctx, draw(ctx, (6,), dtype, 0, 9), dtype)
    p = Partial(jnp.add, bound)
    call = jax.jit(lambda fn, v: fn(v)) if mode == "jit" else (lambda fn, v: fn(v))
    out = ctx.measure(call, p, x)
    check_swept(ctx, out, np.add(b_exact, x_exact))
