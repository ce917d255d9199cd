"""jax.lax.top_k: k largest values and their indices along the last axis, batches, jit."""

import numpy as np
from _jaxhelp import FLOATS_32_64, MODES, REAL_NUMERIC

from portbench_runner.api import case, sweep


@case("float32-k5", k=5)
@case("float64-k1", k=1, dtype="float64")
@case("int32-k3", k=3, dtype="int32")
@case("batched-k4", k=4, shape=(16, 100))
@case("large-k10", k=10, shape=(1_000_000,))
@case("bfloat16-k3", k=3, dtype="bfloat16")
def top_k_values(ctx, k, dtype="float32", shape=(50,)):
    import jax

    n = int(np.prod(shape))
    # Distinct values: the expected indices are unique.
    x = (ctx.rng.permutation(n).reshape(shape) - n // 2).astype(
        "float32" if dtype == "bfloat16" else dtype
    )
    if dtype == "bfloat16":
        x = x[..., :64] if x.ndim else x
    arr = ctx.put(x, dtype=dtype)
    host = np.asarray(ctx.to_numpy(arr)).astype("float64")
    values, indices = ctx.measure(jax.lax.top_k, arr, k)
    order = np.argsort(-host, axis=-1, kind="stable")[..., :k]
    ctx.check_close(values, np.take_along_axis(host, order, axis=-1), dtype="float64")
    ctx.check_equal(
        np.take_along_axis(host, np.asarray(ctx.to_numpy(indices)), axis=-1),
        np.take_along_axis(host, order, axis=-1),
    )


@case("jit")
def top_k_jit(ctx):
    import jax

    f = jax.jit(lambda v: jax.lax.top_k(v, 2))
    values, indices = ctx.measure(f, ctx.put(np.array([1.0, 9.0, 3.0, 7.0], dtype="float32")))
    ctx.check_equal(values, [9.0, 7.0])
    ctx.check_equal(indices, [1, 3])


# Every ordered dtype lax.top_k ranks on the CPU, eager and under jax.jit: the k largest
# values in order (indices are not compared: integer ties make them ambiguous); new names, so the cases above keep their ids.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=REAL_NUMERIC,
    mode=MODES,
)
def top_k_dtypes(ctx, dtype, mode):
    import jax
    from _jaxhelp import draw, placed

    x, exact = placed(ctx, draw(ctx, (6, 40), dtype, -100, 100), dtype)
    values, indices = ctx.measure(ctx.in_mode(mode, lambda v: jax.lax.top_k(v, 5)), x)
    ctx.check(str(values.dtype) == dtype, f"dtype {values.dtype}, not {dtype}", "type")
    want = np.sort(exact, axis=1)[:, ::-1][:, :5]  # not -sort(-x): unsigned would wrap
    ctx.check_equal(values, want.astype(str(values.dtype)))
    picked = np.take_along_axis(exact, np.asarray(ctx.to_numpy(indices)), axis=1)
    ctx.check_equal(picked, want, what="the values at the returned indices")


# The study's other kinds of paths: the documented errors for a bad k (larger than the axis,
# negative: exact type and message), the Hessian of sum(top_k(x, 3).values**3) (diag(6x) on
# the three largest) in float32 and float64, and jax.vmap along a leading and an inner axis,
# eager and under jax.jit. New names; the cases above keep their ids.
@sweep("error-{form}", form=["k-larger-than-axis", "negative-k"])
def top_k_errors(ctx, form):
    from _jaxhelp import check_raises
    from jax import lax

    x = ctx.put(np.arange(5, dtype="float32"))
    if form == "k-larger-than-axis":
        check_raises(
            ctx, lambda: lax.top_k(x, 9), ValueError, r"k argument to top_k must be no larger than"
        )
    else:
        check_raises(
            ctx, lambda: lax.top_k(x, -1), ValueError, r"k argument to top_k must be nonnegative"
        )


@sweep("grad2-{dtype}-{mode}-sweep", dtype=FLOATS_32_64, mode=MODES)
def top_k_hessian(ctx, dtype, mode):
    from _jaxhelp import swept_hessian
    from jax import lax

    def href(x):
        top = np.zeros(x.size)
        top[np.argsort(-x)[:3]] = 1.0
        return np.diag(6.0 * x * top)

    swept_hessian(ctx, lambda v: (lax.top_k(v, 3)[0] ** 3).sum(), href, dtype, mode, shape=(10,))


@sweep("vmap-axis{axis}-{mode}-sweep", axis=[0, 2], mode=MODES)
def top_k_vmap_axes(ctx, axis, mode):
    from _jaxhelp import swept_vmap
    from jax import lax

    swept_vmap(
        ctx,
        lambda x: lax.top_k(x, 2)[0],
        lambda x: -np.sort(-x, axis=-1)[..., :2],
        "float32",
        mode,
        in_axis=axis,
    )
