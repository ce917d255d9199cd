"""jax.numpy.save: device arrays written as .npy files that NumPy reads back exactly."""

import os
import tempfile

import numpy as np
from _jaxhelp import EVERY_DTYPE

from portbench_runner.api import case, sweep


@case("float32-2d", dtype="float32", shape=(64, 32))
@case("float64", dtype="float64", shape=(100,))
@case("int32", dtype="int32", shape=(10, 10))
@case("bfloat16-as-float32", dtype="bfloat16", shape=(16,))
@case("large", dtype="float32", shape=(1000, 1000))
def save_roundtrip(ctx, dtype, shape):
    import jax.numpy as jnp

    x = (ctx.rng.standard_normal(shape) * 100).astype("float32" if dtype == "bfloat16" else dtype)
    arr = ctx.put(x, dtype=dtype)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "a.npy")
        ctx.measure(jnp.save, path, arr)
        loaded = np.load(path, allow_pickle=False)
        if dtype == "bfloat16":
            # NumPy stores bfloat16 as 2-byte raw records; view them back as bfloat16.
            loaded = loaded.view(jnp.bfloat16).astype("float32")
    ctx.check_equal(
        np.asarray(loaded).astype("float64"), np.asarray(ctx.to_numpy(arr)).astype("float64")
    )


@case("scalar")
def save_scalar(ctx):
    import jax.numpy as jnp

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "s.npy")
        ctx.measure(jnp.save, path, ctx.put(np.float32(3.5)))
        ctx.check_equal(np.load(path), np.float32(3.5))


# Every dtype jnp.save writes on the CPU, as a matrix and as a 0-d array: NumPy reads the
# same values and dtype back (bfloat16: 2-byte records viewed back as bfloat16). Saving is
# host I/O, so there is no jit form; new names, so the cases above keep their ids.
@sweep("{dtype}-{form}-sweep", dtype=EVERY_DTYPE, form=("matrix", "scalar"))
def save_dtypes(ctx, dtype, form):
    import jax.numpy as jnp
    from _jaxhelp import draw, placed

    arr, exact = placed(ctx, draw(ctx, (6, 5) if form == "matrix" else (), dtype, -9, 9), dtype)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "a.npy")
        ctx.measure(jnp.save, path, arr)
        loaded = np.load(path, allow_pickle=False)
    if dtype == "bfloat16":
        loaded = loaded.view(jnp.bfloat16)
    ctx.check(str(loaded.dtype) == dtype, f"saved {dtype}, read back {loaded.dtype}", "type")
    ctx.check(loaded.shape == exact.shape, f"shape {loaded.shape}, not {exact.shape}", "other")
    ctx.check_equal(loaded.astype(exact.dtype), exact)


# The study's other kinds of paths: the documented error for a path in a folder that does
# not exist (exact type and message), and index forms of the array saved: a strided view,
# a reversed one, a transposed one (Fortran order on disk) and a gathered one, each read
# back equal to the view's values. New names; the cases above keep their ids.
@case("error-missing-folder")
def save_error(ctx):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones(3, dtype="float32"))
    check_raises(
        ctx,
        lambda: jnp.save("/nonexistent-portbench/folder/a.npy", x),
        FileNotFoundError,
        r"No such file or directory",
    )


@sweep("index-{form}-sweep", form=["strided", "reversed", "transposed", "gathered"])
def save_index_forms(ctx, form):
    import jax.numpy as jnp

    x = np.arange(48, dtype="float32").reshape(6, 8)
    arr = ctx.put(x)
    view, expected = {
        "strided": (lambda a: a[1::2, ::3], x[1::2, ::3]),
        "reversed": (lambda a: a[::-1, -3:], x[::-1, -3:]),
        "transposed": (lambda a: a.T, x.T),
        "gathered": (lambda a: a[jnp.array([4, 0, 4])], x[[4, 0, 4]]),
    }[form]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "view.npy")
        ctx.measure(jnp.save, path, view(arr), warm=False)
        loaded = np.load(path, allow_pickle=False)
    ctx.check(loaded.shape == expected.shape, f"saved shape {loaded.shape}", "other")
    ctx.check_equal(loaded, expected)
