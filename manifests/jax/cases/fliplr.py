"""jax.numpy.fliplr: reverses the second axis; 2-d and n-d inputs; 1-d is refused; jit."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, MODES

from portbench_runner.api import case, sweep


@case("float32-2d", shape=(6, 7))
@case("float64-3d", shape=(3, 4, 5), dtype="float64")
@case("int32-2d", shape=(8, 3), dtype="int32")
@case("large", shape=(1000, 1000))
def fliplr_values(ctx, shape, dtype="float32"):
    import jax.numpy as jnp

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    ctx.check_equal(ctx.measure(jnp.fliplr, ctx.put(x)), np.fliplr(x))


@case("jit")
def fliplr_jit(ctx):
    import jax
    import jax.numpy as jnp

    x = np.arange(6, dtype="float32").reshape(2, 3)
    ctx.check_equal(ctx.measure(jax.jit(jnp.fliplr), ctx.put(x)), np.fliplr(x))


@case("one-d-is-refused")
def fliplr_1d(ctx):
    import jax.numpy as jnp

    x = ctx.put(np.arange(4, dtype="float32"))

    def attempt():
        try:
            jnp.fliplr(x)
        except ValueError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "fliplr accepted a 1-d input")


# Every dtype jnp.fliplr moves on the CPU (exact), eager and under jax.jit; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def fliplr_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_exact

    swept_exact(ctx, jnp.fliplr, np.fliplr, dtype, mode)


# The study's other kinds of paths: the documented error for a 1-d input, which has no
# second axis (exact type and message), the Hessian of sum(fliplr(x)**3) (diag(6x)) in
# float32 and float64, and jax.vmap along a leading and an inner axis, eager and under
# jax.jit. New names; the cases above keep their ids.
@case("error-one-d-input")
def fliplr_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones(5, dtype="float32"))
    check_raises(
        ctx, lambda: jnp.fliplr(x), ValueError, r"axis 1 is out of bounds for array of dimension 1"
    )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def fliplr_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import selection_hessian, swept_hessian

    f, href = selection_hessian(jnp.fliplr, np.fliplr, (3, 4))
    swept_hessian(ctx, f, href, dtype, mode, shape=(3, 4))


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def fliplr_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(ctx, jnp.fliplr, np.fliplr, "float32", mode, in_axis=axis)
