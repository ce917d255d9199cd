"""jax.numpy.stack: along new axes (first, last, negative), dtypes, many inputs, gradient."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, MODES

from portbench_runner.api import case, sweep


@case("axis0", axis=0)
@case("axis-last", axis=-1)
@case("axis1-float64", axis=1, dtype="float64")
@case("int32", axis=0, dtype="int32")
@case("bfloat16", axis=0, dtype="bfloat16")
@case("many-inputs", axis=0, count=100)
def stack_values(ctx, axis, dtype="float32", count=3):
    import jax.numpy as jnp

    parts = [
        (ctx.rng.standard_normal((16, 8)) * 10).astype("float32" if dtype == "bfloat16" else dtype)
        for _ in range(count)
    ]
    placed = [ctx.put(p, dtype=dtype) for p in parts]
    out = ctx.measure(jnp.stack, placed, axis=axis)
    exact = [np.asarray(ctx.to_numpy(p)) for p in placed]
    ctx.check_equal(np.asarray(ctx.to_numpy(out)), np.stack(exact, axis=axis))


@case("grad-unstacks")
def stack_grad(ctx):
    import jax
    import jax.numpy as jnp

    w = ctx.put(np.array([[1.0, 2.0], [3.0, 4.0]], dtype="float32"))
    g = jax.grad(lambda a, b: jnp.sum(jnp.stack([a, b]) * w), argnums=(0, 1))
    ga, gb = ctx.measure(
        g, ctx.put(np.zeros(2, dtype="float32")), ctx.put(np.zeros(2, dtype="float32"))
    )
    ctx.check_close(ga, [1.0, 2.0], dtype="float32")
    ctx.check_close(gb, [3.0, 4.0], dtype="float32")


# Every dtype jnp.stack joins (three arrays on a new middle axis) on the CPU (exact), eager and under jax.jit; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def stack_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_exact

    swept_exact(
        ctx,
        lambda x: jnp.stack([x, x[::-1], x], axis=1),
        lambda x: np.stack([x, x[::-1], x], axis=1),
        dtype,
        mode,
    )


# The study's other kinds of paths: the documented errors for bad arguments (nothing to
# stack, unequal shapes, an axis out of range: exact type and message), the Hessian of
# sum(stack([x, x[::-1]])**3) (every element stacked twice: diag(12x)) in float32 and
# float64, and jax.vmap over one or both stacked inputs, eager and under jax.jit. New names;
# the cases above keep their ids.
@sweep("error-{form}", form=["no-arrays", "unequal-shapes", "axis-out-of-range"])
def stack_errors(ctx, form):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    a = ctx.put(np.ones(5, dtype="float32"))
    call, pattern = {
        "no-arrays": (lambda: jnp.stack([]), r"Need at least one array to stack"),
        "unequal-shapes": (
            lambda: jnp.stack([a, ctx.put(np.ones(4, dtype="float32"))]),
            r"All input arrays must have the same shape",
        ),
        "axis-out-of-range": (lambda: jnp.stack([a, a], axis=3), r"axis 3 is out of bounds"),
    }[form]
    check_raises(ctx, call, ValueError, pattern)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def stack_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import selection_hessian, swept_hessian

    f, href = selection_hessian(
        lambda v: jnp.stack([v, v[::-1]], axis=1), lambda v: np.stack([v, v[::-1]], axis=1), (3, 4)
    )
    swept_hessian(ctx, f, href, dtype, mode, shape=(3, 4))


@sweep("vmap-{axes}-{mode}-sweep", axes=["batched-first", "both"], mode=MODES)
def stack_vmap(ctx, axes, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap_args

    in_axes = {"batched-first": (0, None), "both": (1, 0)}[axes]
    swept_vmap_args(
        ctx,
        lambda a, b: jnp.stack([a, b], axis=-1),
        lambda a, b: np.stack([a, b], axis=-1),
        ("float32", "float32"),
        mode,
        in_axes,
    )
