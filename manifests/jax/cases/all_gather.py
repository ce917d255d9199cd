"""jax.lax.all_gather: gathers a value from every member of a named axis (vmap and pmap)."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, GRAD_FLOATS, MODES, local_devices, over_named_axis

from portbench_runner.api import case, sweep


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


# Every dtype all_gather moves on the CPU (exact), over vmap under jax.jit, pmap and
# shard_map on the local devices (one on a CPU cell). Under shard_map the gather is tiled:
# its output varies over the mesh axis by JAX's design (all_gather_invariant is the
# replicated one), so each shard's copy comes back concatenated; new names, so the cases
# above keep their ids.
@sweep("{dtype}-{form}-sweep", dtype=EVERY_DTYPE, form=("vmap-jit", "pmap", "shard_map"))
def all_gather_dtypes(ctx, dtype, form):
    import jax
    from _jaxhelp import draw, out_dtype, placed

    n = len(local_devices(ctx))
    rows = {"vmap-jit": 4, "pmap": n, "shard_map": 2 * n}[form]
    x, exact = placed(ctx, draw(ctx, (rows, 3), dtype, 0, 9), dtype)
    if form == "shard_map":
        out = over_named_axis(ctx, form, lambda v, name: jax.lax.all_gather(v, name, tiled=True), x)
        expected = np.tile(exact, (n, 1))
    else:
        out = over_named_axis(ctx, form, jax.lax.all_gather, x)
        expected = np.broadcast_to(exact, (rows, rows, 3))
    ctx.check(out_dtype(ctx, out) == dtype, f"{dtype} came back {out_dtype(ctx, out)}", "type")
    ctx.check_equal(out, expected.astype(out_dtype(ctx, out)))


# The gathered axis's position and tiling under vmap: axis=1 puts it second, tiled=True
# concatenates instead of stacking; new names, so the cases above keep their ids.
@sweep("{form}-sweep", form=("axis1", "tiled-axis0", "tiled-axis1"))
def all_gather_axis_forms(ctx, form):
    import jax

    x = ctx.rng.standard_normal((4, 2, 3)).astype("float32")
    axis = 0 if form == "tiled-axis0" else 1
    tiled = form != "axis1"
    f = jax.vmap(lambda v: jax.lax.all_gather(v, "i", axis=axis, tiled=tiled), axis_name="i")
    out = ctx.measure(f, ctx.put(x))
    each = {
        "axis1": x.transpose(1, 0, 2),
        "tiled-axis0": x.reshape(8, 3),
        "tiled-axis1": np.concatenate(list(x), axis=1),
    }[form]
    ctx.check_equal(out, np.broadcast_to(each, (4, *each.shape)))


# all_gather is linear: d/dx of sum over the batch of all_gather(x) * W is 4 W (each row is
# gathered by all four members), in each float width.
@sweep("grad-{dtype}-sweep", dtype=GRAD_FLOATS)
def all_gather_grad_dtypes(ctx, dtype):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_swept, draw, placed

    x, _ = placed(ctx, draw(ctx, (4, 3), dtype), dtype)
    w, w_exact = placed(ctx, draw(ctx, (4, 3), dtype), dtype)

    def loss(v, weights):
        gathered = jax.vmap(lambda r: jax.lax.all_gather(r, "i"), axis_name="i")(v)
        return jnp.sum(gathered * weights)

    out = ctx.measure(jax.grad(loss), x, w)
    check_swept(ctx, out, 4 * w_exact, scale=4.0)


# The study's other kinds of paths: the documented error for an axis name nothing binds
# (exact type and message), and nested jax.vmap with two named axes (gathering over the
# outer or the inner one), eager and under jax.jit. New names; the cases above keep their
# ids.
@case("error-unbound-axis-name")
def all_gather_error(ctx):
    import jax
    from _jaxhelp import check_raises

    x = ctx.put(np.ones((3, 2), dtype="float32"))
    f = jax.vmap(lambda v: jax.lax.all_gather(v, "j"), axis_name="i")
    check_raises(ctx, lambda: f(x), NameError, r"unbound axis name: j")


@sweep("vmap-nested-{axis}-{mode}-sweep", axis=["outer", "inner"], mode=MODES)
def all_gather_nested(ctx, axis, mode):
    import jax

    x = ctx.rng.standard_normal((3, 4, 2)).astype("float32")
    name = "o" if axis == "outer" else "n"
    inner = jax.vmap(lambda v: jax.lax.all_gather(v, name), axis_name="n")
    f = jax.vmap(inner, axis_name="o")
    out = ctx.measure(ctx.in_mode(mode, f), ctx.put(x))
    # out[i, j] gathers v over the named axis: x[:, j] (outer) or x[i] (inner).
    expected = np.stack(
        [np.stack([x[:, j] if axis == "outer" else x[i] for j in range(4)]) for i in range(3)]
    )
    ctx.check_equal(out, expected)
