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
