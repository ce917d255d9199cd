"""Helpers shared by the TensorFlow case files (not a case file: it registers no case).

``by_mode`` picks eager, ``tf.function`` (graph executor) or ``tf.function(jit_compile=True)``
(XLA); ``v1_graph``/``v1_session`` build a TF1 graph pinned to the case's device and a session
with soft placement off, so a TF1 case really executes its graph where the cell says.
"""

from __future__ import annotations

import contextlib

MODES = ("eager", "graph", "xla")


def by_mode(ctx, fn, mode):
    """``fn`` as run in ``mode``: ``eager`` (as is), ``graph`` (tf.function) or ``xla``."""
    if mode == "eager":
        return fn
    if mode == "graph":
        return ctx.graph(fn)
    if mode == "xla":
        return ctx.compiled(fn)
    raise ValueError(f"unknown mode {mode!r} (known: {', '.join(MODES)})")


@contextlib.contextmanager
def v1_graph(ctx):
    """A fresh ``tf.Graph`` as default, with new ops placed on the case's device."""
    import tensorflow as tf

    graph = tf.Graph()
    # A graph has its own device stack: the eager tf.device scope of the case does not reach it.
    with graph.as_default(), tf.device(ctx.device):
        yield graph


def v1_session(graph):
    """A ``tf.compat.v1.Session`` on ``graph`` that refuses to move ops off their device."""
    import tensorflow as tf

    v1 = tf.compat.v1
    return v1.Session(graph=graph, config=v1.ConfigProto(allow_soft_placement=False))


def bf16_round(ctx, x):
    """``x`` (float32 NumPy) rounded through bfloat16, as float64: the input a bf16 op sees."""
    return ctx.to_numpy(ctx.put(x, dtype="bfloat16")).astype("float64")


def raises(fn, *types):
    """A callable returning the name of the exception ``fn()`` raised among ``types``, or None."""

    def call():
        try:
            fn()
        except types as exc:
            return type(exc).__name__
        return None

    return call


class Box:
    """Holds a TF1 graph object (Variable, Tensor) so ``ctx.measure`` does not try to read it.

    ``measure`` synchronizes every output leaf with ``.numpy()``, which graph objects lack
    outside eager mode; a case that times graph construction returns its result boxed.
    """

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def boxed(fn):
    """``fn`` returning its result in a :class:`Box`."""
    return lambda *args, **kwargs: Box(fn(*args, **kwargs))


# -- sweeps: one dtype in one mode against a float64 reference ----------------------------
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
#: (rtol = atol) of a swept elementwise case, by the dtype of the output.
SWEEP_RTOL = {
    "float16": 2e-3,
    "bfloat16": 2e-2,
    "float32": 2e-5,
    "float64": 1e-12,
    "complex64": 2e-5,
    "complex128": 1e-12,
}


def draw(ctx, shape, dtype, lo=-3.0, hi=3.0):
    """Random inputs of ``dtype`` in [lo, hi) (unsigned from 0), seeded per case; bfloat16 is
    drawn in float32 and rounded on the device."""
    if dtype in INTS:
        low = max(int(lo), 0) if dtype.startswith("u") else int(lo)
        return ctx.rng.integers(low, int(hi), size=shape).astype(dtype)
    if dtype == "bool":
        return ctx.rng.random(shape) > 0.5
    if dtype in ("complex64", "complex128"):
        both = ctx.rng.uniform(lo, hi, size=shape) + 1j * ctx.rng.uniform(lo, hi, size=shape)
        return both.astype(dtype)
    return ctx.rng.uniform(lo, hi, size=shape).astype("float32" if dtype == "bfloat16" else dtype)


def placed(ctx, x, dtype):
    """(tensor on the device, its exact values on the host: floats as float64, complex as
    complex128, integers and bool as they are)."""
    import numpy as np

    tensor = ctx.put(x, dtype=dtype)
    host = np.asarray(ctx.to_numpy(tensor))
    if host.dtype.kind == "c":
        return tensor, host.astype("complex128")
    return tensor, host.astype("float64") if host.dtype.kind == "f" else host


def out_dtype(out):
    dtype = getattr(out, "dtype", None)
    return getattr(dtype, "name", str(dtype))


def check_swept(ctx, out, expected, scale=1.0, dtype=None):
    """An output against its reference by the output's own dtype: integers, bool and strings
    exactly, floats within ``SWEEP_RTOL`` times ``scale``. ``dtype``: the output dtype the
    op must give, checked first (the tolerance follows the output's dtype, so a wrong one
    would otherwise pass: a mutation run found such cases)."""
    import numpy as np

    name = out_dtype(out)
    if dtype is not None:
        ctx.check(name == dtype, f"the output is {name}, not {dtype}", "type")
    if name not in SWEEP_RTOL:
        ctx.check_equal(out, np.asarray(expected).astype(name))
        return
    r = SWEEP_RTOL[name] * scale
    ctx.check_close(out, expected, rtol=r, atol=r)


def swept_grad(ctx, fn, dref, dtype, mode, lo=-3.0, hi=3.0, scale=1.0, shape=(64,)):
    """The GradientTape gradient of sum(fn(x)) in one dtype and mode against the analytic
    derivative; the gradient keeps the input's dtype."""
    import tensorflow as tf

    x, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)

    def grad(v):
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = tf.reduce_sum(fn(v))
        return tape.gradient(y, v)

    out = ctx.measure(by_mode(ctx, grad, mode), x)
    ctx.check(out_dtype(out) == dtype, f"the gradient is {out_dtype(out)}, not {dtype}", "type")
    check_swept(ctx, out, dref(exact), scale)


# --- widening (tf-a, tf-b) ---
# Dtype lists the widened sweeps share (literal tuples: the host reads them with ast, and a
# ``+`` of two of them is still a tuple).
#: The real floating dtypes TensorFlow has kernels for on the CPU.
REAL_FLOATS = ("float16", "bfloat16", "float32", "float64")
#: The complex dtypes.
COMPLEXES = ("complex64", "complex128")
BOOLS = ("bool",)
#: TensorFlow's string dtype, for APIs that carry it alongside the numeric ones.
STRINGS = ("string",)
#: the index dtypes (tf.range, shapes, block sizes): the two widths TF indexes with.
INDEX_INTS = ("int32", "int64")
#: Signed and unsigned integer widths.
SIGNED_INTS = ("int8", "int16", "int32", "int64")
UNSIGNED_INTS = ("uint8", "uint16", "uint32", "uint64")
#: Every numeric dtype plus bool: what a dtype-generic API (constants, variables, datasets,
#: TensorArrays, sessions) carries unchanged; floats first (the tf-a sweeps' order).
EVERY_DTYPE = REAL_FLOATS + COMPLEXES + SIGNED_INTS + UNSIGNED_INTS + BOOLS
#: The same dtypes, bool first (the tf-b sweeps' order; case order only, names are equal).
ALL_DTYPES = BOOLS + SIGNED_INTS + UNSIGNED_INTS + REAL_FLOATS + COMPLEXES
#: the dtypes with arithmetic (all but bool).
NUMERIC = SIGNED_INTS + UNSIGNED_INTS + REAL_FLOATS + COMPLEXES
#: The modes of ops XLA has no kernel for (string, sparse-set, random-gamma, box-drawing,
#: summary ops).
EAGER_GRAPH = ("eager", "graph")


def draw_any(ctx, shape, dtype, lo=0, hi=9):
    """``draw`` for every dtype in :data:`EVERY_DTYPE`: small non-negative integers (exact in
    every width and in float16/bfloat16), bool at random, complex with both parts set."""
    import numpy as np

    if dtype == "bool":
        return ctx.rng.random(shape) > 0.5
    ints = ctx.rng.integers(lo, hi, size=shape)
    if dtype.startswith("complex"):
        return (ints + 1j * ctx.rng.integers(lo, hi, size=shape)).astype(dtype)
    return np.asarray(ints).astype("float32" if dtype == "bfloat16" else dtype)


def check_dtype(ctx, out, dtype):
    """The output keeps the dtype the case asked for."""
    name = out_dtype(out)
    ctx.check(name == dtype, f"dtype {name}, expected {dtype}", "type")


def host_exact(ctx, tensor):
    """A tensor's exact values on the host (bfloat16 as float32, the rest as they are)."""
    import numpy as np

    return np.asarray(ctx.to_numpy(tensor))


# -- the study's other kinds of paths (issue #33) ------------------------------------------
# Error paths, golden values, indexing forms, transforms (tf.vectorized_map, second-order
# gradients through nested GradientTapes), flag grids, duplicate indices and checkpoints of
# iterators. Case names start with the kind's word (``error-``, ``golden-``, ``index-``,
# ``vectorized-map-``/``grad2-``, ``flags-``, ``duplicate-``, ``checkpoint-``) so the
# coverage table can count them from the ids alone.


def for_release(ctx, rows):
    """The value recorded for this release: ``rows`` is ``((first_release, value), ...)`` in
    release order, each holding up to the next row's first release; ``None`` before the
    first row."""
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
    values the framework itself computed once); exact unless ``rtol``. A release no row
    covers is a skip: its values were never recorded."""
    import numpy as np

    values = for_release(ctx, rows)
    if values is None:
        ctx.skip(f"no golden values recorded for tensorflow {ctx.version}")
    expected = np.asarray(values)
    got = np.asarray(ctx.to_numpy(out))
    if rtol:
        ctx.check_close(got, expected, rtol=rtol, atol=rtol, what=what)
    else:
        ctx.check_equal(got, expected.astype(got.dtype), what=what)


def second_derivative(fn):
    """The elementwise second derivative of an elementwise ``fn``: two nested GradientTapes
    (d/dx of d/dx sum(fn(x)))."""
    import tensorflow as tf

    def d2(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(fn(x))
            dy = inner.gradient(y, x)
        return outer.gradient(dy, x)

    return d2


def swept_grad2(ctx, fn, d2ref, dtype, mode, lo=-3.0, hi=3.0, scale=1.0, shape=(64,)):
    """The second derivative of an elementwise ``fn`` through nested GradientTapes, in one
    float dtype and mode, against the analytic ``d2ref``; it keeps the input's dtype."""
    x, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    out = ctx.measure(by_mode(ctx, second_derivative(fn), mode), x)
    ctx.check(out_dtype(out) == dtype, f"the second derivative is {out_dtype(out)}", "type")
    check_swept(ctx, out, d2ref(exact), scale)


def hessian(f, pfor=True):
    """The Hessian of a scalar ``f`` of a vector, from nested GradientTapes (the outer tape's
    Jacobian of the inner gradient; ``pfor=False`` builds it row by row in a while loop, for
    ops the vectorizer has no rule for)."""
    import tensorflow as tf

    def h(x):
        # Row by row in eager mode needs a tape that outlives its first gradient.
        with tf.GradientTape(persistent=not pfor) as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = f(x)
            g = inner.gradient(y, x)
        return outer.jacobian(g, x, experimental_use_pfor=pfor)

    return h


def swept_hessian(ctx, f, href, dtype, mode, shape=(8,), lo=-2.0, hi=2.0, scale=1.0, pfor=True):
    """The Hessian (nested GradientTapes) of a scalar ``f`` in one float dtype and mode
    against ``href(x)`` (float64, shaped ``shape + shape``)."""
    import numpy as np

    x, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    out = ctx.measure(by_mode(ctx, hessian(f, pfor), mode), x)
    ctx.check(out_dtype(out) == dtype, f"the Hessian is {out_dtype(out)}", "type")
    check_swept(ctx, out, np.asarray(href(exact)).reshape(tuple(shape) + tuple(shape)), scale)


def swept_vectorized_map(ctx, fn, ref, dtype, mode, shape=(6, 5, 7), lo=-3.0, hi=3.0, scale=1.0):
    """``tf.vectorized_map(fn, x)`` over the leading axis in one dtype and mode against ``ref``
    applied to each row; the mapped output keeps the dtype ``fn`` gives one row."""
    import numpy as np
    import tensorflow as tf

    x, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    out = ctx.measure(by_mode(ctx, lambda t: tf.vectorized_map(fn, t), mode), x)
    expected = np.stack([np.asarray(ref(row)) for row in exact])
    one = out_dtype(fn(x[0]))
    ctx.check(out_dtype(out) == one, f"vectorized_map gave {out_dtype(out)}, one row {one}", "type")
    check_swept(ctx, out, expected, scale)


def iterator_checkpoint(ctx, dataset, consumed):
    """Checkpoint and restore of a tf.data iterator: ``consumed`` elements are read, the
    iterator is saved with tf.train.Checkpoint, the rest is read (the uninterrupted run),
    then the checkpoint is restored and the rest is read again. The measured call is the
    restore and the reads after it. Returns (elements read before the save, the rest as the
    uninterrupted run read it, the rest after the restore), each a list of NumPy values."""
    import os
    import tempfile

    import numpy as np
    import tensorflow as tf

    def values(element):
        return tf.nest.map_structure(np.asarray, element)

    iterator = iter(dataset)
    before = [values(next(iterator)) for _ in range(consumed)]
    checkpoint = tf.train.Checkpoint(iterator=iterator)
    with tempfile.TemporaryDirectory() as folder:
        path = checkpoint.save(os.path.join(folder, "ckpt"))
        uninterrupted = [values(e) for e in iterator]

        def restore_and_read():
            checkpoint.restore(path).assert_consumed()
            return [values(e) for e in iterator]

        restored = ctx.measure(restore_and_read, warm=False)
    return before, uninterrupted, restored


def check_elements(ctx, got, expected, what="elements"):
    """Two lists of dataset elements (NumPy values or nested structures of them) are equal."""
    import numpy as np
    import tensorflow as tf

    ctx.check(
        len(got) == len(expected), f"{what}: {len(got)} elements, expected {len(expected)}", "other"
    )
    for i, (a, b) in enumerate(zip(got, expected)):
        flat_a, flat_b = tf.nest.flatten(a), tf.nest.flatten(b)
        ctx.check(
            len(flat_a) == len(flat_b)
            and all(np.array_equal(u, v) for u, v in zip(flat_a, flat_b)),
            f"{what}: element {i} is {a!r}, expected {b!r}",
            "other",
        )


#: The float widths second derivatives are taken in.
GRAD2_FLOATS = ("float32", "float64")


#: The axis forms a reduction's flag grid names: every axis, each single one, both.
GRID_AXES = {"all": None, "0": 0, "1": 1, "both": (0, 1)}


def reduction_flags(ctx, tfn, nfn, axis, keepdims, shape=(4, 6), lo=-3.0, hi=3.0, dtype="float32"):
    """One point of a reduction's flag grid: ``axis`` (a key of :data:`GRID_AXES`) x
    ``keepdims`` (``keep``/``drop``), against NumPy's own reduction with the same flags."""
    import numpy as np

    x, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    ax = GRID_AXES[axis]
    keep = keepdims == "keep"
    out = ctx.measure(lambda t: tfn(t, axis=ax, keepdims=keep), x)
    expected = np.asarray(nfn(exact, axis=ax, keepdims=keep))
    n = int(np.prod(shape)) if ax is None else int(np.prod([shape[a] for a in np.atleast_1d(ax)]))
    check_swept(ctx, out, expected, scale=max(1.0, n / 4))
