"""jax.lax.select: elementwise choice by a boolean predicate, dtypes, jit, gradient routing."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES, draw, placed

from portbench_runner.api import case, sweep


@case("float32-eager", dtype="float32")
@case("float64-jit", dtype="float64", jit=True)
@case("int32-eager", dtype="int32")
@case("bfloat16-eager", dtype="bfloat16")
@case("float32-large", dtype="float32", shape=(1_000_000,))
def select_values(ctx, dtype, jit=False, shape=(4096,)):
    import jax

    pred = ctx.rng.random(shape) > 0.5
    a, a_host = placed(ctx, draw(ctx, shape, dtype, -100, 100), dtype)
    b, b_host = placed(ctx, draw(ctx, shape, dtype, -100, 100), dtype)
    f = ctx.compiled(jax.lax.select) if jit else jax.lax.select
    out = ctx.measure(f, ctx.put(pred), a, b)
    ctx.check_equal(
        np.asarray(ctx.to_numpy(out)).astype("float64"),
        np.where(pred, a_host, b_host).astype("float64"),
    )


@case("grad-flows-to-chosen-branch")
def select_grad(ctx):
    import jax
    import jax.numpy as jnp

    pred = ctx.put(np.array([True, False, True, False]))
    x = ctx.put(np.arange(4, dtype="float32"))
    out = ctx.measure(jax.grad(lambda v: jnp.sum(jax.lax.select(pred, v * 2.0, v * 5.0))), x)
    ctx.check_close(out, [2.0, 5.0, 2.0, 5.0], dtype="float32")


# Every dtype lax.select picks from on the CPU (exact), eager and under jax.jit; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def select_dtypes(ctx, dtype, mode):
    import jax

    pred, pred_h = placed(ctx, draw(ctx, (9, 11), "bool"), "bool")
    a, a_h = placed(ctx, draw(ctx, (9, 11), dtype, 0, 9), dtype)
    b, b_h = placed(ctx, draw(ctx, (9, 11), dtype, 0, 9), dtype)
    out = ctx.measure(ctx.in_mode(mode, jax.lax.select), pred, a, b)
    ctx.check(str(out.dtype) == dtype, f"dtype {out.dtype}, not {dtype}", "type")
    ctx.check_equal(out, np.where(pred_h, a_h, b_h).astype(str(out.dtype)))
