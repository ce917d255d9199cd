"""jax.numpy.var: population and sample variance (ddof), axes, dtypes, gradient."""

import numpy as np
from _jaxhelp import COMPLEX, FEW_INTS, FLOATS, FLOATS_32_64, MODES, reduction

from portbench_runner.api import case, sweep


@case("float32-all", dtype="float32", axis=None)
@case("float64-axis0", dtype="float64", axis=0)
@case("float32-axis1-jit", dtype="float32", axis=1, jit=True)
@case("bfloat16-all", dtype="bfloat16", axis=None)
@case("float32-ddof1", dtype="float32", axis=1, ddof=1)
def var_values(ctx, dtype, axis, jit=False, ddof=0):
    import jax.numpy as jnp

    reduction(
        ctx,
        jnp.var,
        np.var,
        dtype=dtype,
        axis=axis,
        jit=jit,
        ddof=ddof,
        rtol={"bfloat16": 6e-2}.get(dtype),
    )


@case("constant-is-zero")
def var_constant(ctx):
    import jax.numpy as jnp

    ctx.check_close(
        ctx.measure(jnp.var, ctx.put(np.full(100, 3.5, dtype="float32"))), 0.0, dtype="float32"
    )


@case("grad-is-two-centered-over-n")
def var_grad(ctx):
    import jax
    import jax.numpy as jnp

    x = np.array([1.0, 2.0, 6.0], dtype="float32")
    out = ctx.measure(jax.grad(jnp.var), ctx.put(x))
    ctx.check_close(out, 2 * (x - x.mean()) / 3, dtype="float32")


# Every dtype jnp.var takes on the CPU (integers as floats, complex giving a real
# variance), eager and under jax.jit, over an axis; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FEW_INTS + FLOATS + COMPLEX,
    mode=MODES,
)
def var_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_reduction

    swept_reduction(
        ctx,
        jnp.var,
        lambda x, axis: np.var(
            x.astype("complex128" if x.dtype.kind == "c" else "float64"), axis=axis
        ),
        dtype,
        mode,
    )


# The study's other kinds of paths: the documented error for a bad argument (a Python list:
# exact type and message), the full grid of var's flags (axis x ddof x keepdims x where)
# under jax.jit, the Hessian of var(x) ((2/n)(I - 1/n)) in float32 and float64, and jax.vmap
# along a leading and an inner axis, eager and under jax.jit. New names; the cases above
# keep their ids.
@case("error-list-input")
def var_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    check_raises(ctx, lambda: jnp.var([1.0, 2.0]), TypeError, r"var requires ndarray or scalar")


@sweep(
    "flags-axis-{axis}-ddof{ddof}-{keepdims}-where-{where}-sweep",
    axis=["all", "0", "1", "both"],
    ddof=[0, 1],
    keepdims=["keep", "drop"],
    where=["none", "mask"],
)
def var_flags(ctx, axis, ddof, keepdims, where):
    import jax.numpy as jnp
    from _jaxhelp import reduction_flags

    reduction_flags(ctx, jnp.var, np.var, "float32", axis, keepdims, where, ddof=ddof)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def var_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_hessian

    def href(x):
        n = x.size
        return (2.0 / n) * (np.eye(n) - np.full((n, n), 1.0 / n))

    swept_hessian(ctx, jnp.var, href, dtype, mode)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def var_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    swept_vmap(
        ctx,
        lambda x: jnp.var(x, axis=-1),
        lambda x: np.var(x, axis=-1),
        "float32",
        mode,
        in_axis=axis,
        scale=4.0,
    )
