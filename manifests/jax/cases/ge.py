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
