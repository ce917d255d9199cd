"""jax.numpy.split: equal sections and index lists, axes, uneven sizes refused, jit."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, MODES

from portbench_runner.api import case, sweep


@case("sections-axis0", sections=4, axis=0)
@case("indices-axis1", sections=[2, 5, 9], axis=1)
@case("float64-sections", sections=2, axis=1, dtype="float64")
@case("int32-indices", sections=[1, 3], axis=0, dtype="int32")
@case("large", sections=10, axis=0, shape=(1000, 1000))
def split_values(ctx, sections, axis, dtype="float32", shape=(8, 12)):
    import jax.numpy as jnp

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    out = ctx.measure(jnp.split, ctx.put(x), sections, axis=axis)
    expected = np.split(x, sections, axis=axis)
    ctx.check(len(out) == len(expected), f"{len(out)} parts, expected {len(expected)}")
    for got, want in zip(out, expected):
        ctx.check_equal(got, want)


@case("jit-static-sections")
def split_jit(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda v: jnp.split(v, 3))
    parts = ctx.measure(f, ctx.put(np.arange(9, dtype="float32")))
    ctx.check_equal(parts[2], [6.0, 7.0, 8.0])


@case("uneven-is-refused")
def split_uneven(ctx):
    import jax.numpy as jnp

    x = ctx.put(np.arange(10, dtype="float32"))

    def attempt():
        try:
            jnp.split(x, 3)
        except ValueError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "split of 10 into 3 equal parts was accepted")


# Every dtype jnp.split cuts on the CPU (exact, three equal parts of axis 1), eager and
# under jax.jit; new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=EVERY_DTYPE,
    mode=MODES,
)
def split_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import draw, placed

    x, exact = placed(ctx, draw(ctx, (4, 9), dtype, 0, 9), dtype)
    parts = ctx.measure(ctx.in_mode(mode, lambda v: jnp.split(v, 3, axis=1)), x)
    ctx.check(len(parts) == 3, f"{len(parts)} parts, not 3", "other")
    for index, (part, want) in enumerate(zip(parts, np.split(exact, 3, axis=1))):
        ctx.check_equal(part, want.astype(str(part.dtype)), what=f"part {index}")


# The study's other kinds of paths: the documented error for sections that do not divide the
# axis (exact type and message), index forms of the boundaries (jnp.split documents them as
# slice bounds, [x[0:2], x[2:7], x[7:]], so a negative boundary and one past the end mean
# what they mean in a slice, as in NumPy), the Hessian of sum(split(x)[1]**3) (the middle
# part only: diag(6x) there, 0 elsewhere) in float32 and float64, and jax.vmap along a
# leading and an inner axis, eager and under jax.jit. New names; the cases above keep their
# ids.
@case("error-sections-do-not-divide")
def split_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    check_raises(
        ctx,
        lambda: jnp.split(x, 3, axis=1),
        ValueError,
        r"array split does not result in an equal division",
    )


@sweep(
    "index-{form}-{mode}-sweep",
    form=["negative-boundary", "boundary-past-end", "empty-part"],
    mode=MODES,
)
def split_index_forms(ctx, form, mode):
    import jax.numpy as jnp

    x = np.arange(24, dtype="float32").reshape(8, 3)
    bounds = {"negative-boundary": [2, -3], "boundary-past-end": [5, 12], "empty-part": [3, 3]}[
        form
    ]
    out = ctx.measure(ctx.in_mode(mode, lambda v: jnp.split(v, bounds)), ctx.put(x))
    expected = np.split(x, bounds)
    ctx.check(len(out) == len(expected), f"{len(out)} parts, not {len(expected)}", "other")
    for got, want in zip(out, expected):
        ctx.check_equal(got, want)


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def split_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import selection_hessian, swept_hessian

    f, href = selection_hessian(lambda v: jnp.split(v, 3)[1], lambda v: np.split(v, 3)[1], (6, 2))
    swept_hessian(ctx, f, href, dtype, mode, shape=(6, 2))


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def split_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    # The last part of three along the slice's last axis (7 columns: [2, 5] boundaries).
    swept_vmap(
        ctx,
        lambda x: jnp.split(x, [2, 5], axis=-1)[2],
        lambda x: np.split(x, [2, 5], axis=-1)[2],
        "float32",
        mode,
        in_axis=axis,
    )
