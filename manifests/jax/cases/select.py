"""jax.lax.select: elementwise choice by a boolean predicate, dtypes, jit, gradient routing."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, MODES, draw, placed

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


# The study's other kinds of paths: the documented errors for bad arguments (a float
# predicate, branches of different shapes or dtypes: exact type and message), the second
# derivative routed per element (grad of grad of select(p, x*x, x**3) is 2 or 6x) in float32
# and float64, and jax.vmap over the predicate, the branches or all three, eager and under
# jax.jit. New names; the cases above keep their ids.
@sweep("error-{form}", form=["float-predicate", "mixed-shapes", "mixed-dtypes"])
def select_errors(ctx, form):
    from _jaxhelp import check_raises
    from jax import lax

    pred = ctx.put(np.ones(5, dtype=bool))
    x = ctx.put(np.ones(5, dtype="float32"))
    call, exc, pattern = {
        "float-predicate": (lambda: lax.select(x, x, x), TypeError, r"must be boolean"),
        "mixed-shapes": (
            lambda: lax.select(pred, x, ctx.put(np.ones(4, dtype="float32"))),
            TypeError,
            r"select cases must have the same shapes",
        ),
        "mixed-dtypes": (
            lambda: lax.select(pred, x, ctx.put(np.ones(5, dtype="int32"))),
            TypeError,
            r"lax\.select requires arguments to have the same dtypes",
        ),
    }[form]
    check_raises(ctx, call, exc, pattern)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def select_grad2(ctx, dtype, mode):
    import jax
    from _jaxhelp import check_swept, draw, out_dtype, placed

    pred = np.arange(64) % 3 == 0
    pred_d = ctx.put(pred)
    arr, exact = placed(ctx, draw(ctx, (64,), dtype), dtype)
    # grad2 maps over elements, so the predicate is mapped beside them.
    f = jax.vmap(
        jax.grad(jax.grad(lambda p, v: jax.lax.select(p, v * v, v**3), argnums=1), argnums=1)
    )
    out = ctx.measure(ctx.in_mode(mode, f), pred_d, arr)
    ctx.check(
        out_dtype(ctx, out) == dtype, f"the second derivative is {out_dtype(ctx, out)}", "type"
    )
    check_swept(ctx, out, np.where(pred, 2.0, 6.0 * exact))


@sweep("vmap-{axes}-{mode}-sweep", axes=["predicate", "branches", "all"], mode=MODES)
def select_vmap(ctx, axes, mode):
    from _jaxhelp import swept_vmap_args
    from jax import lax

    in_axes = {"predicate": (0, None, None), "branches": (None, 1, 0), "all": (1, 1, 1)}[axes]
    swept_vmap_args(ctx, lax.select, np.where, ("bool", "float32", "float32"), mode, in_axes)
