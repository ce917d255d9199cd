"""jax.lax.infeed: a jitted computation receives host data through the device's infeed queue."""

import threading

import numpy as np
from _jaxhelp import EVERY_DTYPE, np_dtype

from portbench_runner.api import case, sweep


def _infeed_roundtrip(ctx, shape, dtype):
    import jax
    import jax.numpy as jnp

    infeed = ctx.require("jax.lax.infeed")
    ctx.require("jax.lax.create_token")
    aval = (
        jax.ShapedArray(shape, np.dtype(dtype))
        if hasattr(jax, "ShapedArray")
        else jax.core.ShapedArray(shape, np.dtype(dtype))
    )

    @jax.jit
    def receive(scale):
        token = jax.lax.create_token()
        (value,), _ = infeed(token, shape=(aval,))
        return value * scale

    payload = ctx.rng.standard_normal(shape).astype(dtype)
    device = ctx.device
    if not hasattr(device, "transfer_to_infeed"):
        ctx.skip(f"{device} has no transfer_to_infeed in jax {ctx.version}")

    def run():
        # The infeed blocks until the host side enqueues: feed from another thread.
        feeder = threading.Thread(target=device.transfer_to_infeed, args=((payload,),))
        feeder.start()
        out = receive(ctx.put(np.asarray(2.0, dtype=dtype)))
        jnp.asarray(out).block_until_ready()
        feeder.join()
        return out

    out = ctx.measure(run, warm=False)
    ctx.check_close(out, payload.astype("float64") * 2, dtype=dtype)


@case("float32-vector")
def infeed_vector(ctx):
    _infeed_roundtrip(ctx, (16,), "float32")


@case("float64-matrix")
def infeed_matrix(ctx):
    _infeed_roundtrip(ctx, (8, 8), "float64")


@case("int32-scalar")
def infeed_int(ctx):
    _infeed_roundtrip(ctx, (), "int32")


# A payload of every dtype through the infeed queue, received unchanged inside jax.jit
# (exact). Releases whose CPU device has no transfer_to_infeed skip, as the cases above do;
# new names, so the cases above keep their ids.
@sweep("{dtype}-sweep", dtype=EVERY_DTYPE)
def infeed_dtypes(ctx, dtype):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import draw, placed

    infeed = ctx.require("jax.lax.infeed")
    ctx.require("jax.lax.create_token")
    device = ctx.device
    if not hasattr(device, "transfer_to_infeed"):
        ctx.skip(f"{device} has no transfer_to_infeed in jax {ctx.version}")
    want_dtype = np_dtype(dtype)
    shaped = jax.ShapedArray if hasattr(jax, "ShapedArray") else jax.core.ShapedArray
    aval = shaped((3, 4), want_dtype)
    # The payload as the device holds it (bfloat16 rounded), fed from the host.
    _, exact = placed(ctx, draw(ctx, (3, 4), dtype, 0, 9), dtype)
    payload = exact.astype(want_dtype)

    @jax.jit
    def receive():
        (value,), _ = infeed(jax.lax.create_token(), shape=(aval,))
        return value

    def run():
        # The infeed blocks until the host side enqueues: feed from another thread.
        feeder = threading.Thread(target=device.transfer_to_infeed, args=((payload,),))
        feeder.start()
        out = receive()
        jnp.asarray(out).block_until_ready()
        feeder.join()
        return out

    out = ctx.measure(run, warm=False)
    ctx.check(str(out.dtype) == dtype, f"{dtype} came back {out.dtype}", "type")
    ctx.check_equal(
        np.asarray(ctx.to_numpy(out)), payload.astype(np.asarray(ctx.to_numpy(out)).dtype)
    )


# The study's other kind of path here: the documented error for a shape that is not a pytree
# of ShapedArrays (exact type and message). jax 0.10.2 has no lax.infeed and skips. New
# name; the cases above keep their ids.
@case("error-shape-not-avals")
def infeed_error(ctx):
    import jax
    from _jaxhelp import check_raises

    infeed = ctx.require("jax.lax.infeed")
    token = jax.lax.create_token()
    check_raises(
        ctx, lambda: infeed(token, shape=(3,)), TypeError, r"must be a pytree of ShapedArray values"
    )
