"""jax.nn.one_hot: class indices to one-hot rows, dtypes, axis, out-of-range rows are zero."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES, SWEPT_INTS, np_dtype

from portbench_runner.api import case, sweep


@case("float32-10-classes", n=10, dtype="float32")
@case("bfloat16", n=5, dtype="bfloat16")
@case("int32", n=7, dtype="int32")
@case("large-1000-classes", n=1000, dtype="float32", count=1000)
def one_hot_values(ctx, n, dtype, count=64):
    import jax
    import jax.numpy as jnp

    labels = ctx.rng.integers(0, n, size=count).astype("int32")
    out = ctx.measure(jax.nn.one_hot, ctx.put(labels), n, dtype=getattr(jnp, dtype))
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype("float64"), np.eye(n)[labels])


@case("out-of-range-is-zero-row")
def one_hot_out_of_range(ctx):
    import jax

    out = ctx.measure(jax.nn.one_hot, ctx.put(np.array([0, 3, -1], dtype="int32")), 3)
    ctx.check_equal(out, [[1, 0, 0], [0, 0, 0], [0, 0, 0]])


@case("axis-0")
def one_hot_axis(ctx):
    import jax

    labels = np.array([2, 0, 1], dtype="int32")
    out = ctx.measure(jax.nn.one_hot, ctx.put(labels), 3, axis=0)
    ctx.check_equal(out, np.eye(3)[labels].T)


@case("jit")
def one_hot_jit(ctx):
    import jax

    f = jax.jit(lambda v: jax.nn.one_hot(v, 4))
    ctx.check_equal(ctx.measure(f, ctx.put(np.array([3, 1], dtype="int32"))), np.eye(4)[[3, 1]])


# Every output dtype jax.nn.one_hot builds on the CPU, eager and under jax.jit, with an
# out-of-range label (its row is all zeros); new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def one_hot_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import out_dtype

    labels = np.append(ctx.rng.integers(0, 6, size=20), 6).astype("int32")
    fn = ctx.in_mode(mode, lambda v: jax.nn.one_hot(v, 6, dtype=np_dtype(dtype)))
    out = ctx.measure(fn, ctx.put(labels))
    ctx.check(
        out_dtype(ctx, out) == dtype, f"one_hot(dtype={dtype}) gave {out_dtype(ctx, out)}", "type"
    )
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype("float64"), np.eye(7)[labels][:, :6])


# Labels of every integer width (unsigned included), eager and under jax.jit.
@sweep("labels-{dtype}-{mode}-sweep", dtype=SWEPT_INTS, mode=MODES)
def one_hot_label_dtypes(ctx, dtype, mode):
    import jax

    labels = ctx.rng.integers(0, 5, size=16).astype(dtype)
    out = ctx.measure(
        ctx.in_mode(mode, lambda v: jax.nn.one_hot(v, 5)), ctx.put(labels, dtype=dtype)
    )
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype("float64"), np.eye(5)[labels])


# The study's other kinds of paths: the documented errors for bad arguments (a traced
# num_classes under jax.jit, an axis out of range: exact type and message), the full grid
# of axis (first, middle, last) x label rank (1-d, 2-d), and jax.vmap along a leading and an
# inner axis, eager and under jax.jit. New names; the cases above keep their ids.
@sweep("error-{form}", form=["traced-num-classes", "axis-out-of-range"])
def one_hot_errors(ctx, form):
    import jax
    from _jaxhelp import check_raises

    labels = ctx.put(np.arange(3, dtype="int32"))
    if form == "traced-num-classes":
        f = jax.jit(jax.nn.one_hot)
        check_raises(ctx, lambda: f(labels, 3), jax.errors.ConcretizationTypeError, r"num_classes")
    else:
        check_raises(
            ctx, lambda: jax.nn.one_hot(labels, 4, axis=3), ValueError, r"axis 3 is out of bounds"
        )


@sweep("flags-axis-{axis}-rank{rank}-sweep", axis=[0, 1, -1], rank=[1, 2])
def one_hot_flags(ctx, axis, rank):
    import jax

    shape = (7,) if rank == 1 else (3, 4)
    labels = ctx.rng.integers(0, 5, size=shape).astype("int32")
    out = ctx.measure(ctx.compiled(lambda v: jax.nn.one_hot(v, 5, axis=axis)), ctx.put(labels))
    expected = np.moveaxis(np.eye(5)[labels], -1, axis)
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype("float64"), expected)


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 1], mode=MODES)
def one_hot_vmap_axes(ctx, axis, mode):
    import jax
    from _jaxhelp import out_dtype

    labels = ctx.rng.integers(0, 4, size=(5, 6)).astype("int32")
    out = ctx.measure(
        ctx.in_mode(mode, jax.vmap(lambda v: jax.nn.one_hot(v, 4), in_axes=axis)), ctx.put(labels)
    )
    expected = np.eye(4)[np.moveaxis(labels, axis, 0)]
    ctx.check(
        out_dtype(ctx, out) == out_dtype(ctx, jax.nn.one_hot(ctx.put(labels[0]), 4)),
        f"vmap gave {out_dtype(ctx, out)}",
        "type",
    )
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype("float64"), expected)
