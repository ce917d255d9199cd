"""jax.lax.all_gather: gathers a value from every member of a named axis (vmap and pmap)."""

import numpy as np

from portbench_runner.api import case


@case("vmap-axis")
@case("vmap-axis-float64", dtype="float64")
def all_gather_vmap(ctx, dtype="float32"):
    import jax

    x = ctx.rng.standard_normal((4, 3)).astype(dtype)
    f = jax.vmap(lambda v: jax.lax.all_gather(v, "i"), axis_name="i")
    out = ctx.measure(f, ctx.put(x))
    ctx.check_equal(out, np.broadcast_to(x, (4, 4, 3)))


@case("vmap-tiled")
def all_gather_tiled(ctx):
    import jax

    x = np.arange(6, dtype="float32").reshape(3, 2)
    f = jax.vmap(lambda v: jax.lax.all_gather(v, "i", tiled=True), axis_name="i")
    out = ctx.measure(f, ctx.put(x))
    ctx.check_equal(out, np.broadcast_to(x.reshape(6), (3, 6)))


@case("pmap-over-local-devices")
def all_gather_pmap(ctx):
    import jax

    devices = [d for d in jax.devices() if d.platform == ctx.device.platform]
    n = len(devices)
    x = np.arange(n * 2, dtype="float32").reshape(n, 2)
    f = jax.pmap(lambda v: jax.lax.all_gather(v, "d"), axis_name="d", devices=devices)
    out = ctx.measure(f, x)
    ctx.check_equal(out, np.broadcast_to(x, (n, n, 2)))
