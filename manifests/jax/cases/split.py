"""jax.numpy.split: equal sections and index lists, axes, uneven sizes refused, jit."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES

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
