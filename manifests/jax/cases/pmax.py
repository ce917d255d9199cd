"""jax.lax.pmax: the maximum over a named axis (vmap and pmap), several dtypes."""

import numpy as np
from _jaxhelp import BOOL, MODES, REAL_NUMERIC, local_devices, over_named_axis

from portbench_runner.api import case, sweep


@case("vmap-float32", dtype="float32")
@case("vmap-float64", dtype="float64")
@case("vmap-int32", dtype="int32")
def pmax_vmap(ctx, dtype):
    import jax

    x = (ctx.rng.standard_normal((8, 5)) * 100).astype(dtype)
    f = jax.vmap(lambda v: jax.lax.pmax(v, "i"), axis_name="i")
    out = ctx.measure(f, ctx.put(x))
    ctx.check_equal(out, np.broadcast_to(x.max(axis=0), (8, 5)))


@case("pmap-over-local-devices")
def pmax_pmap(ctx):
    import jax

    devices = [d for d in jax.devices() if d.platform == ctx.device.platform]
    n = len(devices)
    x = np.arange(n * 3, dtype="float32").reshape(n, 3)
    out = ctx.measure(jax.pmap(lambda v: jax.lax.pmax(v, "d"), axis_name="d", devices=devices), x)
    ctx.check_equal(out, np.broadcast_to(x.max(axis=0), (n, 3)))


# Every ordered dtype pmax reduces on the CPU (bool as logical or), over vmap under jax.jit,
# pmap and shard_map on the local devices (one on a CPU cell). Complex has no order and is
# left out; pmax has no differentiation rule in JAX ("Differentiation rule for 'pmax' not
# implemented"), so there is no gradient sweep; new names, so the cases above keep their
# ids.
# Finding on jax 0.4.13: shard_map has no replication rule for pmax (NotImplementedError
# unless check_rep=False, while psum has one); later releases have it. The shard_map cases
# keep the default check and fail there honestly.
@sweep("{dtype}-{form}-sweep", dtype=BOOL + REAL_NUMERIC, form=("vmap-jit", "pmap", "shard_map"))
def pmax_dtypes(ctx, dtype, form):
    import jax
    from _jaxhelp import draw, out_dtype, placed

    n = len(local_devices(ctx))
    rows = {"vmap-jit": 5, "pmap": n, "shard_map": 2 * n}[form]
    x, exact = placed(ctx, draw(ctx, (rows, 4), dtype, -60, 60), dtype)
    out = over_named_axis(ctx, form, jax.lax.pmax, x)
    if form == "shard_map":
        # Each shard's block (2 rows) takes the elementwise max over the shards' blocks.
        block = exact.reshape(n, 2, 4).max(axis=0)
        expected = np.tile(block, (n, 1))
    else:
        expected = np.broadcast_to(exact.max(axis=0), (rows, 4))
    ctx.check(out_dtype(ctx, out) == dtype, f"{dtype} came back {out_dtype(ctx, out)}", "type")
    ctx.check_equal(out, expected.astype(out_dtype(ctx, out)))


# The study's other kinds of paths: the documented error for an axis name nothing binds
# (exact type and message), and nested jax.vmap with two named axes (the maximum over the
# outer, the inner, or both), eager and under jax.jit. New names; the cases above keep
# their ids.
@case("error-unbound-axis-name")
def pmax_error(ctx):
    import jax
    from _jaxhelp import check_raises

    x = ctx.put(np.ones((3, 2), dtype="float32"))
    f = jax.vmap(lambda v: jax.lax.pmax(v, "j"), axis_name="i")
    check_raises(ctx, lambda: f(x), NameError, r"unbound axis name: j")


@sweep("vmap-nested-{axis}-{mode}-sweep", axis=["outer", "inner", "both"], mode=MODES)
def pmax_nested(ctx, axis, mode):
    import jax

    x = (ctx.rng.standard_normal((3, 4, 2)) * 10).astype("float32")
    names = {"outer": "o", "inner": "n", "both": ("o", "n")}[axis]
    f = jax.vmap(jax.vmap(lambda v: jax.lax.pmax(v, names), axis_name="n"), axis_name="o")
    out = ctx.measure(ctx.in_mode(mode, f), ctx.put(x))
    reduce_axes = {"outer": (0,), "inner": (1,), "both": (0, 1)}[axis]
    ctx.check_equal(out, np.broadcast_to(x.max(axis=reduce_axes, keepdims=True), x.shape))
