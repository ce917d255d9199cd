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


def inexact_of(dtype):
    """The dtype a jnp elementwise function computes an input of ``dtype`` in: floats and
    complex keep theirs; booleans and integers up to 32 bits become float32, 64-bit ones
    float64 (JAX's promotion to an inexact type, the same in 0.4.13 and 0.10.2 with x64 on)."""
    if dtype in ("bool", *INTS):
        return "float64" if dtype.endswith("64") else "float32"
    return dtype


def swept_unary(ctx, fn, ref, dtype, mode, lo=-3.0, hi=3.0, scale=1.0, shape=(257,), out=None):
    """fn over one dtype in one mode (``eager`` or ``jit``) against ref on the exact inputs
    (integers as float64 too: NumPy would compute exp of int8 in float16). The output's dtype
    is checked first (``out``, by default :func:`inexact_of` the input's): the tolerance
    follows the output's dtype, so a float64 input computed in float32 would otherwise pass
    at float32's tolerance."""
    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    result = ctx.measure(ctx.in_mode(mode, fn), arr)
    want = out or inexact_of(dtype)
    got = out_dtype(ctx, result)
    ctx.check(got == want, f"{dtype} input gave a {got} output, not {want}", "type")
    check_swept(
        ctx, result, ref(exact.astype("float64") if exact.dtype.kind in "iub" else exact), scale
    )
    return result


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
        # NumPy's integer (or bool) reference on the same exact integers has the dtype the
        # op should give (int8 + int8 is int8, a comparison bool): checked, not cast to the
        # output's. A float reference leaves the dtype to the caller (ge checks bool itself).
        expected = np.asarray(expected)
        name = out_dtype(ctx, out)
        if expected.dtype.kind in "biu":
            want = expected.dtype.name
            ctx.check(name == want, f"{dtype} inputs gave a {name} output, not {want}", "type")
        ctx.check_equal(out, expected.astype(name))
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
    expected = np.asarray(ref(a_exact, b_exact))
    # check_swept takes the tolerance from the output's dtype, so the dtype is checked first:
    # a comparison gives bool, integer ops NumPy's dtype on the same integers, float ops the
    # inputs' own (a mutation run found dtype changes passing here).
    exact_op = expected.dtype == bool or dtype in ("bool", *INTS)
    want = expected.dtype.name if exact_op else dtype
    got = out_dtype(ctx, out)
    ctx.check(got == want, f"{dtype} inputs gave a {got} output, not {want}", "type")
    check_swept(ctx, out, expected, scale)
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
    expected = np.asarray(ref(exact))
    # The output's dtype is checked, never taken from it: the input's where the op keeps it,
    # else the reference's (a truth reduction gives bool; a mutation run found an int32
    # output passing when the reference was cast to it).
    want = dtype if keeps_dtype else expected.dtype.name
    ctx.check(name == want, f"{dtype} input gave {name}, not {want}", "type")
    ctx.check_equal(out, expected.astype(name))
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


# -- the study's other kinds of paths (issue #33) ------------------------------------------
# Error paths, golden values, indexing forms, transforms (vmap, second-order gradients),
# flag grids, duplicate indices and checkpoints. Case names start with the kind's word
# (``error-``, ``golden-``, ``index-``, ``vmap-``/``grad2-``, ``flags-``, ``duplicate-``,
# ``checkpoint-``) so the coverage table can count them from the ids alone.


def for_release(ctx, rows):
    """The value recorded for this release: ``rows`` is ``((first_release, value), ...)``
    in release order, each holding from its first release up to the next row's; ``None``
    before the first row (a release nothing was recorded for)."""
    chosen = None
    for first, value in rows:
        if ctx.version_at_least(first):
            chosen = value
    return chosen


def check_raises(ctx, call, exc_type, pattern):
    """The documented error path: ``call()`` raises exactly ``exc_type`` (the class itself,
    not a subclass or a parent) with a message that ``pattern`` (a regular expression)
    searches. The measured call returns the exception's class name, which is what the CPU
    twin compares; returning normally, or raising anything else, fails the case."""
    import re

    caught = []

    def attempt():
        del caught[:]
        try:
            call()
        except Exception as exc:  # any exception: the wrong one is what the case reports
            caught.append(exc)
            return type(exc).__name__
        return "no exception"

    ctx.measure(attempt)
    want = f"{exc_type.__module__}.{exc_type.__qualname__}"
    ctx.check(caught, f"returned normally; expected {want}", "other")
    exc = caught[0]
    got = f"{type(exc).__module__}.{type(exc).__qualname__}"
    text = str(exc)
    # Long messages (TensorFlow prefixes its op's wrapped name) are shown by both ends.
    shown = text if len(text) <= 500 else f"{text[:150]} ... {text[-300:]}"
    ctx.check(type(exc) is exc_type, f"raised {got}: {shown!r}; expected {want}", "other")
    ctx.check(
        re.search(pattern, text), f"{got} message {shown!r} does not match {pattern!r}", "other"
    )


def check_golden(ctx, out, rows, what="result", rtol=0.0):
    """``out`` against the golden values recorded for this release (``for_release`` rows of
    values computed by the framework itself once); exact unless ``rtol``. A release before
    the first recorded one is a skip: its values were never recorded."""
    values = for_release(ctx, rows)
    if values is None:
        ctx.skip(f"no golden values recorded for jax {ctx.version} (first: {rows[0][0]})")
    expected = np.asarray(values)
    got = np.asarray(ctx.to_numpy(out))
    if rtol:
        ctx.check_close(got, expected, rtol=rtol, atol=rtol, what=what)
    else:
        ctx.check_equal(
            got.astype(expected.dtype) if got.dtype != expected.dtype else got, expected, what=what
        )


def grad2(fn):
    """The second derivative of a scalar-to-scalar ``fn``, elementwise over an array
    (``jax.grad`` of ``jax.grad``, each mapped with ``jax.vmap``)."""
    import jax

    return jax.vmap(jax.grad(jax.grad(fn)))


def swept_grad2(ctx, fn, d2ref, dtype, mode, lo=-3.0, hi=3.0, scale=1.0, shape=(64,)):
    """The second derivative of an elementwise ``fn`` (grad of grad, vmapped) in one float
    dtype and mode against the analytic ``d2ref``; it keeps the input's dtype."""
    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    out = ctx.measure(ctx.in_mode(mode, grad2(fn)), arr)
    ctx.check(
        out_dtype(ctx, out) == dtype, f"the second derivative is {out_dtype(ctx, out)}", "type"
    )
    check_swept(ctx, out, d2ref(exact), scale)


def swept_vmap(ctx, fn, ref, dtype, mode, in_axis=0, shape=(6, 5, 7), lo=-3.0, hi=3.0, scale=1.0):
    """``jax.vmap(fn, in_axes=in_axis)`` against ``ref`` applied to each slice along that
    axis (the batch axis leads the output), in one dtype and mode; the mapped output keeps
    the dtype ``fn`` gives one slice."""
    import jax
    import jax.numpy as jnp

    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    out = ctx.measure(ctx.in_mode(mode, jax.vmap(fn, in_axes=in_axis)), arr)
    expected = np.stack(
        [np.asarray(ref(np.take(exact, i, axis=in_axis))) for i in range(shape[in_axis])]
    )
    one = out_dtype(ctx, fn(jnp.take(arr, 0, axis=in_axis)))
    ctx.check(
        out_dtype(ctx, out) == one, f"vmap gave {out_dtype(ctx, out)}, one slice {one}", "type"
    )
    check_swept(ctx, out, expected, scale)


def swept_hessian(ctx, f, href, dtype, mode, shape=(12,), lo=-2.0, hi=2.0, scale=1.0):
    """``jax.hessian`` of a scalar ``f`` of one array in one float dtype and mode against
    ``href(x)`` (float64 on the exact inputs, shaped ``shape + shape``); keeps the dtype."""
    import jax

    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    out = ctx.measure(ctx.in_mode(mode, jax.hessian(f)), arr)
    ctx.check(out_dtype(ctx, out) == dtype, f"the Hessian is {out_dtype(ctx, out)}", "type")
    check_swept(ctx, out, np.asarray(href(exact)).reshape(shape + shape), scale)


def selection_hessian(op, ref, shape):
    """For an ``op`` that only moves, copies or drops elements (``ref`` its NumPy twin), the
    Hessian of ``sum(op(x)**3)``: diagonal, ``6 x_i`` times how often ``ref`` puts element
    ``i`` in its output. Returns ``(f, href)`` for :func:`swept_hessian`."""
    import jax.numpy as jnp

    size = int(np.prod(shape))
    placed_at = np.asarray(ref(np.arange(size).reshape(shape)))
    copies = np.bincount(placed_at.ravel(), minlength=size).astype("float64")

    def f(v):
        return jnp.sum(op(v) ** 3)

    def href(x):
        return np.diag(6.0 * x.ravel() * copies)

    return f, href


def linear_matrix(ref, shape):
    """The matrix of a linear NumPy map ``ref`` on arrays of ``shape``, column by column from
    the unit arrays (for Hessians of ``sum(op(x)**2)``: ``2 A^T A``)."""
    size = int(np.prod(shape))
    columns = [np.ravel(ref(np.eye(size)[i].reshape(shape))) for i in range(size)]
    return np.stack(columns, axis=1)


def swept_vmap_args(ctx, fn, ref, dtypes, mode, in_axes, shape=(5, 6), lo=-3.0, hi=3.0, scale=1.0):
    """``jax.vmap(fn, in_axes)`` over several arguments (``dtypes`` one per argument; an axis of
    ``None`` is an unbatched argument, broadcast to every batch element) against ``ref`` of the
    slices, batch axis leading; the mapped output keeps the dtype ``fn`` gives one slice."""
    import jax
    import jax.numpy as jnp

    batch = 4
    arrays, exacts = [], []
    for dtype, axis in zip(dtypes, in_axes):
        full = shape if axis is None else (*shape[:axis], batch, *shape[axis:])
        arr, exact = placed(ctx, draw(ctx, full, dtype, lo, hi), dtype)
        arrays.append(arr)
        exacts.append(exact)

    def pick(values, k, take):
        return [v if a is None else take(v, k, axis=a) for v, a in zip(values, in_axes)]

    out = ctx.measure(ctx.in_mode(mode, jax.vmap(fn, in_axes=tuple(in_axes))), *arrays)
    expected = np.stack([np.asarray(ref(*pick(exacts, k, np.take))) for k in range(batch)])
    one = out_dtype(ctx, fn(*pick(arrays, 0, jnp.take)))
    ctx.check(
        out_dtype(ctx, out) == one, f"vmap gave {out_dtype(ctx, out)}, one slice {one}", "type"
    )
    check_swept(ctx, out, expected, scale)


#: The axis forms a reduction's flag grid names: every axis, each single one, both.
GRID_AXES = {"all": None, "0": 0, "1": 1, "both": (0, 1)}


def reduction_flags(
    ctx, jfn, nfn, dtype, axis, keepdims, where, shape=(4, 6), lo=-3.0, hi=3.0, **kw
):
    """One point of a reduction's flag grid, under jax.jit: ``axis`` (a key of
    :data:`GRID_AXES`), ``keepdims`` (``keep``/``drop``), ``where`` (``none``/``mask``, a
    fixed mask that leaves every reduced slice at least three elements), and keywords passed to
    both; against NumPy's own reduction with the same flags on the exact inputs."""
    arr, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    flags = dict(kw, axis=GRID_AXES[axis], keepdims=keepdims == "keep")
    if where == "mask":
        # One element in four masked, on a diagonal pattern: every row and column keeps at
        # least three, so no reduced slice is empty (or degenerate for ddof=1).
        i, j = np.indices(shape)
        mask = (i + j) % 4 != 3
        flags["where"] = mask
        jflags = dict(flags, where=ctx.put(mask))
    else:
        jflags = flags
    out = ctx.measure(ctx.compiled(lambda v: jfn(v, **jflags)), arr)
    expected = np.asarray(nfn(exact, **flags))
    if expected.dtype == bool:
        # A truth reduction gives bool whatever it reduces; check_swept would compare an
        # int32 output's values only (a mutation run found one passing).
        got = out_dtype(ctx, out)
        ctx.check(got == "bool", f"a truth reduction gave a {got} output, not bool", "type")
    reduced = (
        int(np.prod(shape))
        if flags["axis"] is None
        else int(np.prod([shape[a] for a in np.atleast_1d(flags["axis"])]))
    )
    check_swept(ctx, out, expected, scale=max(1.0, reduced / 4))
    return out
