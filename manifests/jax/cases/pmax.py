"""jax.lax.pmax: the maximum over a named axis (vmap and pmap), several dtypes."""

import numpy as np

from portbench_runner.api import case


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
