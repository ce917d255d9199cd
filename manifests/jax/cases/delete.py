"""jax.numpy.delete: remove entries by index, slice or index list, along an axis."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, MODES

from portbench_runner.api import case, sweep


@case("index-flat", obj=3, axis=None)
@case("index-axis0", obj=1, axis=0)
@case("list-axis1", obj=[0, 2, 4], axis=1)
@case("negative-index-axis1", obj=-1, axis=1)
@case("int32-list-flat", obj=[1, 5, 7], axis=None, dtype="int32")
@case("large", obj=[0, 500, 999], axis=0, shape=(1000, 1000))
def delete_values(ctx, obj, axis, dtype="float32", shape=(5, 6)):
    import jax.numpy as jnp

    x = (ctx.rng.standard_normal(shape) * 10).astype(dtype)
    # JAX takes index lists as arrays (it refuses Python lists, unlike NumPy).
    index = ctx.put(np.array(obj)) if isinstance(obj, list) else obj
    ctx.check_equal(
        ctx.measure(jnp.delete, ctx.put(x), index, axis=axis), np.delete(x, obj, axis=axis)
    )


@case("slice-axis0")
def delete_slice(ctx):
    import jax.numpy as jnp

    x = np.arange(20, dtype="float64").reshape(10, 2)
    ctx.check_equal(
        ctx.measure(jnp.delete, ctx.put(x), slice(2, 8, 2), axis=0),
        np.delete(x, slice(2, 8, 2), axis=0),
    )


@case("jit-static-indices")
def delete_jit(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda v: jnp.delete(v, jnp.array([0, 3]), assume_unique_indices=True))
    x = np.arange(6, dtype="float32")
    ctx.check_equal(ctx.measure(f, ctx.put(x)), np.delete(x, [0, 3]))


# Every dtype jnp.delete takes on the CPU (it moves values: exact), eager and under jax.jit
# (a static index, so the output's shape is known), along an axis; new names, so the cases
# above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def delete_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_exact

    swept_exact(
        ctx, lambda v: jnp.delete(v, 2, axis=1), lambda v: np.delete(v, 2, axis=1), dtype, mode
    )


# The study's other kinds of paths: the documented errors for bad indices (a float index,
# a traced index under jax.jit: exact type and message), more index forms of obj (a slice
# with a negative step, a boolean mask, negative entries of an index array), duplicate
# indices (an element listed twice is deleted once, as in NumPy), the Hessian of
# sum(delete(x)**3) (diag(6x) on the kept elements) in float32 and float64, and jax.vmap
# along a leading and an inner axis, eager and under jax.jit. New names; the cases above
# keep their ids.
@sweep("error-{form}", form=["float-index", "traced-index"])
def delete_errors(ctx, form):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.arange(5, dtype="float32"))
    if form == "float-index":
        check_raises(ctx, lambda: jnp.delete(x, 1.5), ValueError, r"must be integer or bool")
    else:
        f = jax.jit(jnp.delete)
        check_raises(
            ctx,
            lambda: f(x, 1),
            jax.errors.ConcretizationTypeError,
            r"'obj' array argument of jnp\.delete",
        )


@sweep(
    "index-{form}-{mode}-sweep",
    form=["negative-step-slice", "bool-mask", "negative-entries"],
    mode=MODES,
)
def delete_index_forms(ctx, form, mode):
    import jax.numpy as jnp

    x = np.arange(24, dtype="float32").reshape(6, 4)
    obj = {
        "negative-step-slice": slice(None, None, -2),
        "bool-mask": np.array([True, False, False, True, False, True]),
        "negative-entries": np.array([-1, 0, -3]),
    }[form]
    # obj is static (a slice or a NumPy array closed over), so the output's shape is known
    # under jax.jit too.
    out = ctx.measure(ctx.in_mode(mode, lambda v: jnp.delete(v, obj, axis=0)), ctx.put(x))
    ctx.check_equal(out, np.delete(x, obj, axis=0))


@sweep("duplicate-indices-{mode}-sweep", mode=MODES)
def delete_duplicates(ctx, mode):
    import jax.numpy as jnp

    x = np.arange(10, dtype="float32")
    obj = np.array([2, 7, 2, 2, 9])
    out = ctx.measure(ctx.in_mode(mode, lambda v: jnp.delete(v, obj)), ctx.put(x))
    ctx.check_equal(out, np.delete(x, obj))


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def delete_hessian(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import selection_hessian, swept_hessian

    obj = np.array([0, 2, 3])
    f, href = selection_hessian(
        lambda v: jnp.delete(v, obj, axis=1), lambda v: np.delete(v, obj, axis=1), (3, 5)
    )
    swept_hessian(ctx, f, href, dtype, mode, shape=(3, 5))


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def delete_vmap_axes(ctx, axis, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_vmap

    obj = np.array([1, 3])
    swept_vmap(
        ctx,
        lambda x: jnp.delete(x, obj, axis=1),
        lambda x: np.delete(x, obj, axis=1),
        "float32",
        mode,
        in_axis=axis,
    )
