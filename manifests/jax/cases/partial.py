"""jax.tree_util.Partial: a partial application that is a pytree and passes through jit."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, MODES

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


# The study's other kinds of paths: the documented error for a first argument that is not
# callable (exact type and message), jax.vmap over the bound array (a Partial is a pytree,
# so in_axes maps its leaves) and over the call's argument, and the second derivative with
# respect to a bound array (grad of grad through the Partial) in float32 and float64, eager
# and under jax.jit. New names; the cases above keep their ids.
@case("error-not-callable")
def partial_error(ctx):
    from _jaxhelp import check_raises
    from jax.tree_util import Partial

    check_raises(ctx, lambda: Partial(3), TypeError, r"the first argument must be callable")


@sweep("vmap-{axes}-{mode}-sweep", axes=["bound-array", "argument", "both"], mode=MODES)
def partial_vmap(ctx, axes, mode):
    import jax
    import jax.numpy as jnp
    from jax.tree_util import Partial

    bound = ctx.rng.uniform(-2, 2, (4, 3)).astype("float32")
    arg = ctx.rng.uniform(-2, 2, (4, 3)).astype("float32")
    in_axes = {"bound-array": (0, None), "argument": (None, 0), "both": (0, 0)}[axes]
    b = bound if in_axes[0] == 0 else bound[0]
    a = arg if in_axes[1] == 0 else arg[0]

    def apply(p, x):
        return p(x)

    out = ctx.measure(
        ctx.in_mode(mode, jax.vmap(apply, in_axes=in_axes)),
        Partial(jnp.multiply, ctx.put(b)),
        ctx.put(a),
    )
    expected = np.broadcast_to(b, (4, 3)) * np.broadcast_to(a, (4, 3))
    ctx.check_close(out, expected, dtype="float32")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def partial_grad2(ctx, dtype, mode):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_swept
    from jax.tree_util import Partial

    x = ctx.rng.uniform(-2, 2, 16).astype(dtype)

    def second(c):
        # d2/dc2 of sum(sin(c * x)) through a Partial binding c: -sum(x**2 sin(c x)).
        return jax.grad(
            jax.grad(lambda s: jnp.sum(Partial(lambda k, v: jnp.sin(k * v), s)(ctx.put(x))))
        )(c)

    c = np.asarray(0.7, dtype=dtype)
    out = ctx.measure(ctx.in_mode(mode, second), ctx.put(c))
    xs = x.astype("float64")
    check_swept(ctx, out, np.asarray(-np.sum(xs**2 * np.sin(0.7 * xs))), scale=16.0)
