"""jax.numpy.add: elementwise addition with broadcasting and type promotion."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, GRAD_FLOATS, MODES, binary

from portbench_runner.api import case, sweep


@case("float32-eager", dtype="float32")
@case("float64-jit", dtype="float64", jit=True)
@case("bfloat16-eager", dtype="bfloat16")
@case("int32-eager", dtype="int32", lo=-1000, hi=1000)
@case("float32-broadcast-row", dtype="float32", shape_b=(256,))
def add_values(ctx, dtype, jit=False, lo=-3.0, hi=3.0, shape_b=None):
    import jax.numpy as jnp

    binary(ctx, jnp.add, np.add, dtype=dtype, jit=jit, lo=lo, hi=hi, shape_b=shape_b)


@case("promotes-int32-and-float32")
def add_promotion(ctx):
    import jax.numpy as jnp

    a = ctx.put(np.arange(8, dtype="int32"))
    b = ctx.put(np.full(8, 0.5, dtype="float32"))
    out = ctx.measure(jnp.add, a, b)
    ctx.check(str(out.dtype) == "float32", f"int32 + float32 gave {out.dtype}, not float32")
    ctx.check_close(out, np.arange(8) + 0.5, dtype="float32")


@case("grad-is-one")
def add_grad(ctx):
    import jax
    import jax.numpy as jnp

    x = ctx.put(np.linspace(-1, 1, 64, dtype="float32"))
    out = ctx.measure(jax.grad(lambda v: jnp.sum(jnp.add(v, 3.0))), x)
    ctx.check_close(out, np.ones(64), dtype="float32")


# Every dtype jnp.add takes on the CPU (bool adds as logical or, integers wrap as NumPy's
# do), eager and under jax.jit, with a broadcast row; new names, so the cases above keep
# their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def add_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_binary

    swept_binary(ctx, jnp.add, np.add, dtype, mode, lo=0 if dtype.startswith("u") else -50, hi=50)


@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def add_grad_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad

    swept_grad(ctx, lambda x: jnp.add(x, x * x), lambda x: 1 + 2 * x, dtype, mode)


# The study's other kinds of paths: the documented errors for bad arguments (shapes that do
# not broadcast, a Python list: exact type and message), the second derivative through add
# (grad of grad of x*x + x is 2) in float32 and float64, and jax.vmap over either operand or
# both, eager and under jax.jit. New names; the cases above keep their ids.
@sweep("error-{form}", form=["shapes-do-not-broadcast", "list-input"])
def add_errors(ctx, form):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    a = ctx.put(np.ones(3, dtype="float32"))
    b = ctx.put(np.ones(4, dtype="float32"))
    if form == "shapes-do-not-broadcast":
        check_raises(ctx, lambda: jnp.add(a, b), TypeError, r"incompatible shapes for broadcasting")
    else:
        check_raises(ctx, lambda: jnp.add([1.0, 2.0, 3.0], a), TypeError, r"add requires ndarray")


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def add_grad2(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad2

    swept_grad2(ctx, lambda x: jnp.add(x * x, x), lambda x: np.full_like(x, 2.0), dtype, mode)


@sweep("vmap-{axes}-{mode}-sweep", axes=["batched-first", "batched-second", "both"], mode=MODES)
def add_vmap(ctx, axes, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap_args

    in_axes = {"batched-first": (0, None), "batched-second": (None, 1), "both": (1, 0)}[axes]
    swept_vmap_args(ctx, jnp.add, np.add, ("float32", "float32"), mode, in_axes)
