"""jax.numpy.tril: lower triangle with offsets k, batches, non-square, dtypes, gradient."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, MODES

from portbench_runner.api import case, sweep


@case("square-k0", shape=(8, 8), k=0)
@case("wide-k2", shape=(5, 9), k=2)
@case("tall-k-minus1", shape=(9, 4), k=-1)
@case("batched-float64", shape=(3, 6, 6), k=0, dtype="float64")
@case("int32", shape=(7, 7), k=1, dtype="int32")
@case("large", shape=(1000, 1000), k=0)
def tril_values(ctx, shape, k, dtype="float32"):
    import jax.numpy as jnp

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    ctx.check_equal(ctx.measure(jnp.tril, ctx.put(x), k=k), np.tril(x, k=k))


@case("jit-static-k")
def tril_jit(ctx):
    import jax
    import jax.numpy as jnp

    x = np.ones((4, 4), dtype="float32")
    f = jax.jit(jnp.tril, static_argnames="k")
    ctx.check_equal(ctx.measure(f, ctx.put(x), k=1), np.tril(x, k=1))


@case("grad-is-mask")
def tril_grad(ctx):
    import jax
    import jax.numpy as jnp

    g = jax.grad(lambda v: jnp.sum(jnp.tril(v)))
    ctx.check_close(
        ctx.measure(g, ctx.put(np.zeros((4, 4), dtype="float32"))),
        np.tril(np.ones((4, 4))),
        dtype="float32",
    )


# Every dtype jnp.tril takes on the CPU (a mask: exact), eager and under jax.jit, batched;
# new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def tril_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import draw, placed

    x, exact = placed(ctx, draw(ctx, (2, 5, 7), dtype, 1, 9), dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda v: jnp.tril(v, 1)), x)
    ctx.check(str(out.dtype) == dtype, f"tril of {dtype} gave {out.dtype}")
    ctx.check_equal(out, np.tril(exact, 1).astype(out.dtype))


# The study's other kinds of paths: the documented error for a 1-d input (exact type and
# message), the Hessian of sum(tril(x)**3) (diag(6x) on the lower triangle, 0 above) in
# float32 and float64, and jax.vmap along a leading and an inner axis, eager and under
# jax.jit. New names; the cases above keep their ids.
@case("error-one-d-input")
def tril_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones(5, dtype="float32"))
    check_raises(
        ctx, lambda: jnp.tril(x), ValueError, r"Argument to jax\.numpy\.tril must be at least 2D"
    )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def tril_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_hessian

    lower = np.tril(np.ones((4, 4))).ravel()
    swept_hessian(
        ctx,
        lambda v: jnp.sum(jnp.tril(v) ** 3),
        lambda x: np.diag(6.0 * x.ravel() * lower),
        dtype,
        mode,
        shape=(4, 4),
    )


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def tril_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(
        ctx, lambda x: jnp.tril(x, 1), lambda x: np.tril(x, 1), "float32", mode, in_axis=axis
    )
