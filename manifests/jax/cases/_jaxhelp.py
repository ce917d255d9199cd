"""Shared bodies of JAX cases: inputs, references on the host, tolerances.

Case files keep their decorators (the host reads case names from them); the repeated
work of building inputs and checking results lives here.
"""

import numpy as np

# Looser than the elementwise defaults: transcendental functions differ by a few ulps
# between XLA and NumPy.
TRANSCENDENTAL_RTOL = {"float32": 2e-5, "float64": 1e-12, "bfloat16": 2e-2, "float16": 2e-3}


def host_dtype(dtype):
    """NumPy has no bfloat16: inputs are drawn in float32 and rounded on the device."""
    return "float32" if dtype == "bfloat16" else dtype


#: The integer dtypes a sweep draws from (x64 is on in the adapter, so 64-bit ones exist).
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")

# The dtype lists sweeps share. Case files import them (``from _jaxhelp import FLOATS``) and
# the host reads them with ``ast`` to name the cases, so each stays a literal tuple or a ``+``
# of these (tuples only: a tuple plus a list is a TypeError). Changing one renames cases.

#: The sweep modes: eager, and compiled with jax.jit.
MODES = ("eager", "jit")
BOOL = ("bool",)
#: Every float width the CPU computes in, half widths included.
FLOATS = ("float16", "bfloat16", "float32", "float64")
#: The float widths gradients are taken in (float16 gradients add nothing bfloat16's don't).
GRAD_FLOATS = ("bfloat16", "float32", "float64")
#: Single and double precision only (functions that refuse the half widths).
FLOATS_32_64 = ("float32", "float64")
COMPLEX = ("complex64", "complex128")
#: Every signed width and unsigned in 8 and 32 bits: the integers most sweeps take, lean.
SWEPT_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint32")
#: Narrow, default, wide and unsigned: integers for functions that promote them to a float.
FEW_INTS = ("int8", "int32", "int64", "uint8")
#: Integers and floats: the ordered numeric dtypes (comparisons, max, top_k).
REAL_NUMERIC = SWEPT_INTS + FLOATS
ALL_NUMERIC = SWEPT_INTS + FLOATS + COMPLEX
#: Every dtype an exact op (moving, masking, building arrays) is swept over.
EVERY_DTYPE = BOOL + SWEPT_INTS + FLOATS + COMPLEX

#: (rtol = atol) of a swept elementwise case, by the dtype of the output.
SWEEP_RTOL = {
    "float16": 2e-3,
    "bfloat16": 2e-2,
    "float32": 2e-5,
    "float64": 1e-12,
    "complex64": 2e-5,
    "complex128": 1e-12,
}


def np_dtype(dtype):
    """The NumPy dtype object named ``dtype``: bfloat16 is JAX's (NumPy lacks it), and bool is
    np.bool_ (jnp.bool is missing from older releases, such as 0.4.13)."""
    if dtype == "bfloat16":
        import jax.numpy as jnp

        return np.dtype(jnp.bfloat16)
    return np.dtype(dtype)


def draw(ctx, shape, dtype, lo=-3.0, hi=3.0):
    """Random inputs of ``dtype`` in [lo, hi) (integers: [lo, hi), unsigned from 0 rather
    than wrapping a negative bound), seeded per case."""
    if dtype in INTS:
        low = max(int(lo), 0) if dtype.startswith("u") else int(lo)
        return ctx.rng.integers(low, int(hi), size=shape).astype(dtype)
    if dtype == "bool":
        return ctx.rng.random(shape) > 0.5
    if dtype in ("complex64", "complex128"):
        both = ctx.rng.uniform(lo, hi, size=shape) + 1j * ctx.rng.uniform(lo, hi, size=shape)
        return both.astype(dtype)
    return ctx.rng.uniform(lo, hi, size=shape).astype(host_dtype(dtype))


def placed(ctx, x, dtype):
    """(device array, the exact input values as float64 (complex128) on the host)."""
    arr = ctx.put(x, dtype=dtype)
    host = np.asarray(ctx.to_numpy(arr))
    if host.dtype.kind == "c":
        return arr, host.astype("complex128")
    return arr, host.astype("float64") if host.dtype.kind == "f" else host


def out_dtype(ctx, out):
    """The name of an output's dtype (``bfloat16`` included, which NumPy lacks)."""
    return str(getattr(out, "dtype", np.asarray(ctx.to_numpy(out)).dtype))


def check_swept(ctx, out, expected, scale=1.0):
    """An output against its float64 (complex128) reference, by the output's own dtype:
    integers and booleans exactly, floats within ``SWEEP_RTOL`` times ``scale``."""
    name = out_dtype(ctx, out)
    if name not in SWEEP_RTOL:
        ctx.check_equal(out, np.asarray(expected).astype(name))
        return
    r = SWEEP_RTOL[name] * scale
    ctx.check_close(out, expected, rtol=r, atol=r)


def swept_unary(ctx, fn, ref, dtype, mode, lo=-3.0, hi=3.0, scale=1.0, shape=(257,)):
    """fn over one dtype in one mode (``eager`` or ``jit``) against ref on the exact inputs
    (integers as float64 too: NumPy would compute exp of int8 in float16)."""
    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    out = ctx.measure(ctx.in_mode(mode, fn), arr)
    check_swept(
        ctx, out, ref(exact.astype("float64") if exact.dtype.kind in "iub" else exact), scale
    )
    return out


def swept_grad(ctx, fn, dref, dtype, mode, lo=-3.0, hi=3.0, scale=1.0):
    """jax.grad of sum(fn(x)) in one dtype and mode against the analytic derivative; the
    gradient keeps the input's dtype."""
    import jax
    import jax.numpy as jnp

    arr, exact = placed(ctx, draw(ctx, (128,), dtype, lo, hi), dtype)
    out = ctx.measure(ctx.in_mode(mode, jax.grad(lambda v: jnp.sum(fn(v)))), arr)
    ctx.check(out_dtype(ctx, out) == dtype, f"the gradient is {out_dtype(ctx, out)}, not {dtype}")
    check_swept(ctx, out, dref(exact), scale)


def unary(
    ctx, fn, ref, dtype="float32", shape=(1024,), jit=False, lo=-3.0, hi=3.0, rtol=None, atol=None
):
    """fn(x) against ref(x) computed in float64 on the exact (rounded) inputs."""
    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    f = ctx.compiled(fn) if jit else fn
    out = ctx.measure(f, arr)
    expected = ref(exact)
    r = TRANSCENDENTAL_RTOL.get(dtype, 0.0) if rtol is None else rtol
    a = r if atol is None else atol
    ctx.check_close(out, expected, rtol=r, atol=a)
    return out


def binary(
    ctx,
    fn,
    ref,
    dtype="float32",
    shape=(256, 256),
    jit=False,
    lo=-3.0,
    hi=3.0,
    rtol=None,
    shape_b=None,
):
    a_arr, a_exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    b_arr, b_exact = placed(ctx, draw(ctx, shape_b or shape, dtype, lo, hi), dtype)
    f = ctx.compiled(fn) if jit else fn
    out = ctx.measure(f, a_arr, b_arr)
    expected = ref(a_exact, b_exact)
    if dtype in ("bool", "int8", "int16", "int32", "int64", "uint8"):
        ctx.check_equal(out, expected.astype(np.asarray(ctx.to_numpy(out)).dtype))
    else:
        r = TRANSCENDENTAL_RTOL.get(dtype, 1e-5) if rtol is None else rtol
        ctx.check_close(out, expected, rtol=r, atol=r)
    return out


def grad_of_sum(ctx, fn, dref, lo=-3.0, hi=3.0, shape=(256,), dtype="float32", rtol=1e-4):
    """jax.grad of sum(fn(x)) against the analytic derivative dref(x)."""
    import jax
    import jax.numpy as jnp

    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    g = jax.grad(lambda v: jnp.sum(fn(v)))
    out = ctx.measure(g, arr)
    ctx.check_close(out, dref(exact), rtol=rtol, atol=rtol)


def vmapped(ctx, fn, ref, shape=(16, 64), lo=-3.0, hi=3.0, rtol=2e-5):
    """jax.vmap of fn over the leading axis against ref applied row by row."""
    import jax

    arr, exact = placed(ctx, draw(ctx, shape, "float32", lo, hi), "float32")
    out = ctx.measure(jax.vmap(fn), arr)
    ctx.check_close(out, np.stack([ref(row) for row in exact]), rtol=rtol, atol=rtol)


def reduction(
    ctx,
    fn,
    ref,
    dtype="float32",
    shape=(64, 128),
    axis=None,
    jit=False,
    lo=-3.0,
    hi=3.0,
    rtol=None,
    **kw,
):
    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    f = (
        ctx.compiled(lambda x: fn(x, axis=axis, **kw))
        if jit
        else (lambda x: fn(x, axis=axis, **kw))
    )
    out = ctx.measure(f, arr)
    expected = ref(exact, axis=axis, **kw)
    if dtype in ("bool", "int32", "int64"):
        ctx.check_equal(out, np.asarray(expected).astype(np.asarray(ctx.to_numpy(out)).dtype))
    else:
        n = exact.size if axis is None else exact.shape[axis]
        default = {"float32": 1e-6 * max(n, 10), "float64": 1e-12 * max(n, 10), "bfloat16": 3e-2}[
            dtype
        ]
        r = default if rtol is None else rtol
        ctx.check_close(out, expected, rtol=r, atol=r * max(1.0, float(np.abs(exact).mean())))
    return out


def swept_binary(
    ctx, fn, ref, dtype, mode, lo=-3.0, hi=3.0, scale=1.0, shape=(17, 33), broadcast=True
):
    """fn(a, b) in one dtype and mode; b a broadcast row (or, for lax's same-shape ops, a
    full array), references in float64 (integer references in the inputs' own dtype, so
    wrap-around matches)."""
    a_arr, a_exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    b_shape = shape[-1:] if broadcast else shape
    b_arr, b_exact = placed(ctx, draw(ctx, b_shape, dtype, lo, hi), dtype)
    out = ctx.measure(ctx.in_mode(mode, fn), a_arr, b_arr)
    check_swept(ctx, out, ref(a_exact, b_exact), scale)
    return out


def swept_reduction(ctx, fn, ref, dtype, mode, axis=1, lo=-3.0, hi=3.0, shape=(16, 32), **kw):
    """A reduction over ``axis`` in one dtype and mode; float tolerances scaled for the
    number of terms reduced (sums round once per term)."""
    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    out = ctx.measure(ctx.in_mode(mode, lambda x: fn(x, axis=axis, **kw)), arr)
    n = exact.size if axis is None else exact.shape[axis]
    check_swept(ctx, out, ref(exact, axis=axis, **kw), scale=max(1.0, n / 4))
    return out


def swept_exact(ctx, fn, ref, dtype, mode, shape=(4, 6, 5), lo=0, hi=9, keeps_dtype=True):
    """An exact op (moving, masking or comparing values) in one dtype and mode: the output
    equals ref on the exact inputs, and keeps the input's dtype where ``keeps_dtype``."""
    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    out = ctx.measure(ctx.in_mode(mode, fn), arr)
    name = out_dtype(ctx, out)
    if keeps_dtype:
        ctx.check(name == dtype, f"{dtype} input gave {name}", "type")
    ctx.check_equal(out, np.asarray(ref(exact)).astype(name))
    return out


# Collectives (all_gather, pmax) run over a named axis in three forms.


def local_devices(ctx):
    """The devices of the case's platform (one on a CPU cell)."""
    import jax

    return [d for d in jax.devices() if d.platform == ctx.device.platform]


def _shard_map(ctx):
    """jax.shard_map where this release has it, else jax.experimental.shard_map's."""
    import jax

    if hasattr(jax, "shard_map"):
        return jax.shard_map
    return ctx.require("jax.experimental.shard_map.shard_map")


def over_named_axis(ctx, form, body, x):
    """``body(v, axis_name)`` mapped over x's leading axis in one of the sweep's forms:
    vmap under jax.jit, pmap over the local devices, or jitted shard_map over a 1-d mesh of
    them (each shard a block of x's rows, the per-shard outputs concatenated)."""
    import jax
    from jax.sharding import Mesh, PartitionSpec

    devices = local_devices(ctx)
    if form == "vmap-jit":
        fn = jax.jit(jax.vmap(lambda v: body(v, "i"), axis_name="i"))
    elif form == "pmap":
        fn = jax.pmap(lambda v: body(v, "d"), axis_name="d", devices=devices)
    else:
        mesh = Mesh(np.array(devices), ("d",))
        spec = PartitionSpec("d")
        fn = jax.jit(
            _shard_map(ctx)(lambda v: body(v, "d"), mesh=mesh, in_specs=spec, out_specs=spec)
        )
    return ctx.measure(fn, x)
