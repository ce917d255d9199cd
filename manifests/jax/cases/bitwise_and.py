"""jax.numpy.bitwise_and: integers of several widths, booleans, broadcasting, jit."""

import numpy as np
from _jaxhelp import BOOL, INTS, MODES, binary

from portbench_runner.api import case, sweep


@case("int32-eager", dtype="int32")
@case("int64-jit", dtype="int64", jit=True)
@case("uint8-eager", dtype="uint8")
@case("int8-eager", dtype="int8")
@case("bool-eager", dtype="bool")
def bitwise_and_values(ctx, dtype, jit=False):
    import jax.numpy as jnp

    lo, hi = {"uint8": (0, 256), "int8": (-128, 128)}.get(dtype, (-(2**30), 2**30))
    binary(ctx, jnp.bitwise_and, np.bitwise_and, dtype=dtype, jit=jit, lo=lo, hi=hi)


@case("float-is-refused")
def bitwise_and_float(ctx):
    import jax.numpy as jnp

    x = ctx.put(np.ones(4, dtype="float32"))
    try:
        jnp.bitwise_and(x, x)
    except TypeError:
        ctx.measure(jnp.bitwise_and, ctx.put(np.ones(4, dtype="int32")), 1)
        return
    ctx.check(False, "bitwise_and accepted float32 operands", category="type")


# Every dtype jnp.bitwise_and takes on the CPU (bool and the integer widths, signed and
# unsigned), eager and under jax.jit, against a broadcast row; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=BOOL + INTS,
    mode=MODES,
)
def bitwise_and_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_binary

    swept_binary(ctx, jnp.bitwise_and, np.bitwise_and, dtype, mode, lo=-100, hi=100)


# The study's other kinds of paths: the documented error for a float operand (exact type and
# message), and jax.vmap over either operand or both, eager and under jax.jit. New names;
# the cases above keep their ids.
@case("error-float-operand")
def bitwise_and_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones(3, dtype="float32"))
    check_raises(
        ctx, lambda: jnp.bitwise_and(x, x), TypeError, r"and does not accept dtype float32"
    )


@sweep("vmap-{axes}-{mode}-sweep", axes=["batched-first", "batched-second", "both"], mode=MODES)
def bitwise_and_vmap(ctx, axes, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap_args

    in_axes = {"batched-first": (0, None), "batched-second": (None, 1), "both": (1, 0)}[axes]
    swept_vmap_args(
        ctx, jnp.bitwise_and, np.bitwise_and, ("int32", "int32"), mode, in_axes, lo=0, hi=1000
    )
