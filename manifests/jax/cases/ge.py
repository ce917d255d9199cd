"""jax.lax.ge: elementwise >= for floats, integers and unsigned, nan handling, jit."""

import numpy as np
from _jaxhelp import BOOL, MODES, REAL_NUMERIC, binary

from portbench_runner.api import case, sweep


@case("float32-eager", dtype="float32")
@case("float64-jit", dtype="float64", jit=True)
@case("int32-eager", dtype="int32", lo=-5, hi=5)
@case("uint8-eager", dtype="uint8", lo=0, hi=4)
@case("bfloat16-eager", dtype="bfloat16")
def ge_values(ctx, dtype, jit=False, lo=-3.0, hi=3.0):
    import jax

    out = binary(
        ctx,
        jax.lax.ge,
        lambda a, b: np.greater_equal(a, b).astype("float64"),
        dtype=dtype,
        jit=jit,
        lo=lo,
        hi=hi,
        rtol=0.0,
    )
    ctx.check(str(out.dtype) == "bool", f"lax.ge returned {out.dtype}, not bool")


@case("nan-compares-false")
def ge_nan(ctx):
    import jax

    a = ctx.put(np.array([np.nan, 1.0, np.nan], dtype="float32"))
    b = ctx.put(np.array([1.0, np.nan, np.nan], dtype="float32"))
    ctx.check_equal(ctx.measure(jax.lax.ge, a, b), [False, False, False])


# Every ordered dtype jax.lax.ge takes on the CPU (complex has no order; lax needs equal
# shapes and dtypes), eager and under jax.jit; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=BOOL + REAL_NUMERIC,
    mode=MODES,
)
def ge_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import swept_binary

    swept_binary(ctx, jax.lax.ge, np.greater_equal, dtype, mode, lo=0, hi=4, broadcast=False)


# The study's other kinds of paths: the documented errors for bad arguments (lax.ge takes
# equal dtypes and shapes, and no complex: exact type and message), and jax.vmap over either
# operand or both, eager and under jax.jit. New names; the cases above keep their ids.
@sweep("error-{form}", form=["mixed-dtypes", "mixed-shapes", "complex-operands"])
def ge_errors(ctx, form):
    from _jaxhelp import check_raises
    from jax import lax

    f32 = ctx.put(np.ones(2, dtype="float32"))
    call, exc, pattern = {
        "mixed-dtypes": (
            lambda: lax.ge(f32, ctx.put(np.ones(2, dtype="int32"))),
            TypeError,
            r"lax\.ge requires arguments to have the same dtypes, got float32, int32",
        ),
        "mixed-shapes": (
            lambda: lax.ge(f32, ctx.put(np.ones(3, dtype="float32"))),
            TypeError,
            r"ge got incompatible shapes for broadcasting",
        ),
        "complex-operands": (
            lambda: lax.ge(*[ctx.put(np.ones(2, dtype="complex64"))] * 2),
            TypeError,
            r"ge does not accept dtype complex64",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)


@sweep("vmap-{axes}-{mode}-sweep", axes=["batched-first", "batched-second", "both"], mode=MODES)
def ge_vmap(ctx, axes, mode):
    from _jaxhelp import swept_vmap_args
    from jax import lax

    in_axes = {"batched-first": (0, None), "batched-second": (None, 1), "both": (1, 0)}[axes]
    swept_vmap_args(ctx, lax.ge, np.greater_equal, ("float32", "float32"), mode, in_axes)
