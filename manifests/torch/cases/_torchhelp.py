"""Shared bodies of PyTorch cases: inputs on the device, float64 references, tolerances."""

import numpy as np

RTOL = {
    "float16": 2e-3,
    "bfloat16": 2e-2,
    "float32": 2e-5,
    "float64": 1e-12,
    "complex64": 2e-5,
    "complex128": 1e-12,
}
#: The dtype families a sweep draws from (module constants must be literals in case files,
#: so case files repeat the lists they sweep; these are for helpers).
INTS = ("int8", "int16", "int32", "int64", "uint8")


def host_dtype(dtype):
    """NumPy has no bfloat16: inputs are drawn in float32 and rounded on the device."""
    return "float32" if dtype == "bfloat16" else dtype


def draw(ctx, shape, dtype="float32", lo=-3.0, hi=3.0):
    if dtype in ("int8", "int16", "int32", "int64", "uint8"):
        return ctx.rng.integers(int(lo), int(hi), size=shape).astype(dtype)
    if dtype == "bool":
        return ctx.rng.random(shape) > 0.5
    if dtype in ("complex64", "complex128"):
        real = ctx.rng.uniform(lo, hi, size=shape) + 1j * ctx.rng.uniform(lo, hi, size=shape)
        return real.astype(dtype)
    return ctx.rng.uniform(lo, hi, size=shape).astype(host_dtype(dtype))


def placed(ctx, x, dtype="float32", requires_grad=False):
    """(tensor on the device, its exact values on the host; floats as float64)."""
    tensor = ctx.put(x, dtype=dtype, requires_grad=requires_grad)
    host = np.asarray(ctx.to_numpy(tensor))
    if host.dtype.kind == "c":
        return tensor, host.astype("complex128")
    return tensor, host.astype("float64") if host.dtype.kind == "f" else host


def unary(ctx, fn, ref, dtype="float32", shape=(1024,), lo=-3.0, hi=3.0, compiled=False, rtol=None):
    tensor, exact = placed(ctx, draw(ctx, shape, dtype, lo, hi), dtype)
    f = ctx.compiled(fn) if compiled else fn
    out = ctx.measure(f, tensor)
    expected = ref(exact)
    if dtype in ("bool", "int8", "int16", "int32", "int64", "uint8"):
        ctx.check_equal(out, expected)
    else:
        r = RTOL[dtype] if rtol is None else rtol
        ctx.check_close(out, expected, rtol=r, atol=r)
    return out


def grad_matches(ctx, fn, dref, shape=(128,), lo=-3.0, hi=3.0, rtol=1e-4):
    """autograd of sum(fn(x)) against the analytic derivative dref(x)."""
    x, exact = placed(ctx, draw(ctx, shape, "float32", lo, hi), "float32", requires_grad=True)

    def backward():
        x.grad = None
        fn(x).sum().backward()
        return x.grad

    out = ctx.measure(backward)
    ctx.check_close(out, dref(exact), rtol=rtol, atol=rtol)


def seeded(ctx):
    """Seed torch's generators from the case seed (module initialisation, dropout)."""
    import torch

    torch.manual_seed(ctx.seed)


# --- widening (torch-a, torch-b) ---
# Dtype lists the widened sweeps share (tuples, so `A + B` of them stays a literal the host
# reads with ast).
HALF_FLOATS = ("float16", "bfloat16")
FULL_FLOATS = ("float32", "float64")
COMPLEXES = ("complex64", "complex128")
ALL_INTS = ("int8", "int16", "int32", "int64", "uint8")
BOOL = ("bool",)
EAGER_COMPILED = ("eager", "compiled")

# The same lists under the names the torch-b files use (one definition each).
FLOAT_DTYPES = HALF_FLOATS + FULL_FLOATS
COMPLEX_DTYPES = COMPLEXES
INT_DTYPES = ALL_INTS
MODES = EAGER_COMPILED


def is_exact(dtype):
    """Integers and bool compare exactly (and wrap like the dtype); floats within a tolerance."""
    return dtype == "bool" or dtype.startswith(("int", "uint"))


def tol(dtype, scale=1.0):
    """(rtol, atol) for `dtype` from RTOL, scaled (reductions and chained ops round more)."""
    r = RTOL.get(dtype, 0.0) * scale
    return {"rtol": r, "atol": r}


def torch_dtype(name):
    import torch

    return getattr(torch, name)


def param_values(dtype, values):
    """Host values as `dtype` rounds them (bfloat16 via torch), in float64 for references."""
    import torch

    t = torch.tensor(np.asarray(values, dtype="float64")).to(torch_dtype(dtype))
    return t.to(torch.float64).numpy()


def gradcheck(ctx, fn, *inputs):
    """torch.autograd.gradcheck of fn at float64 host inputs placed on the device; the measured
    call is the check itself (finite differences against autograd)."""
    import torch

    tensors = [ctx.put(np.asarray(x, dtype="float64"), requires_grad=True) for x in inputs]
    ok = ctx.measure(torch.autograd.gradcheck, fn, tuple(tensors), eps=1e-6, atol=1e-5, warm=False)
    ctx.check(bool(ok), "autograd disagrees with finite differences")


def bf16_round(x):
    """float32 values rounded to bfloat16 (nearest, ties to even) in NumPy, as float64."""
    bits = np.asarray(x, dtype="float32").view("uint32").astype("uint64")
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype("uint32").view("float32").astype("float64")


def quarters(x):
    """Values floored to quarter steps: exact in every float width (bfloat16 too) below 64."""
    if x.dtype.kind == "c":
        return (np.floor(x.real * 4) / 4 + 1j * (np.floor(x.imag * 4) / 4)).astype(x.dtype)
    return (np.floor(x * 4) / 4).astype(x.dtype)


#: (rtol = atol) for small networks whose outputs are O(1) (layer norms, gates): a few
#: roundings of the dtype per layer, not the elementwise tolerance.
NET_TOL = {"float16": 1e-2, "bfloat16": 6e-2, "float32": 1e-4, "float64": 1e-9}


def close_or_equal(ctx, out, expected, dtype, scale=1.0):
    """Exact for integers and bool (wrapping like the dtype), dtype-scaled tolerance otherwise."""
    if dtype == "bool" or dtype in ALL_INTS:
        ctx.check_equal(out, np.asarray(expected).astype(dtype))
    else:
        r = RTOL[dtype] * scale
        ctx.check_close(out, expected, rtol=r, atol=r)


def small_ints(ctx, shape, dtype):
    """Integers 0..8 as `dtype` on the host (bool: above 4): exact in every width, bfloat16
    included (drawn as float32), so values round-trip and compare exactly."""
    values = ctx.rng.integers(0, 9, size=shape)
    return values > 4 if dtype == "bool" else values.astype(host_dtype(dtype))


def host_values(tensors):
    """(dtypes, NumPy copies) of host-side tensors, e.g. DataLoader batches: a measured call
    returns these, not CPU tensors, which a device cell's placement audit would flag.
    bfloat16 becomes float32 (NumPy has no bfloat16)."""
    import torch

    dtypes = [t.dtype for t in tensors]
    arrays = [(t.float() if t.dtype == torch.bfloat16 else t).numpy() for t in tensors]
    return dtypes, arrays


# --- the study's kinds of paths (issue #33): error paths, transforms, restores ---
def refusal(ctx, fn, error, fragment=None, warm=True):
    """The documented refusal of a bad argument, asserted. The measured call is the attempt:
    `fn()` must raise exactly `error` (that class, not a parent, a subclass or a sibling),
    with `fragment` in its message where the message is stable across releases. The attempt
    returns what it saw (the class's qualified name, or "no error"), and that output is what
    is checked: a refusal that does not come, or comes as another class or without the
    fragment, fails the case as `refusal`. Returns the exception."""
    want = f"{error.__module__}.{error.__qualname__}"
    caught = []

    def attempt():
        del caught[:]
        try:
            fn()
        except Exception as exc:  # any class: which one is the check below
            caught.append(exc)
            got = f"{type(exc).__module__}.{type(exc).__qualname__}"
            if fragment is not None and fragment.lower() not in str(exc).lower():
                return f"{got} without {fragment!r}"
            return got
        return "no error"

    got = ctx.measure(attempt, warm=warm)
    exc = caught[0] if caught else None
    said = f" ({str(exc)[:200]})" if exc is not None else ""
    ctx.check(got == want, f"{got}{said}, where {want} is documented", "refusal")
    return exc


def kernel_error(ctx):
    """The class torch raises for a kernel missing for a dtype ('"x_cpu" not implemented for
    'Long''): RuntimeError until 2.7, NotImplementedError from 2.8 (pytorch#155470)."""
    return NotImplementedError if ctx.version_at_least("2.8") else RuntimeError


def vmap(ctx):
    """torch.func.vmap; a skip naming the release before 2.0 (functorch was its own package)."""
    return ctx.require("torch.func.vmap")


def per_sample(fn, *batched):
    """fn applied to each sample of the leading dimension, stacked: what vmap(fn) must equal."""
    import torch

    outs = [fn(*(b[i] for b in batched)) for i in range(batched[0].shape[0])]
    if isinstance(outs[0], (tuple, list)):
        return tuple(torch.stack(parts) for parts in zip(*outs))
    return torch.stack(outs)


def gradgradcheck(ctx, fn, *inputs):
    """Second-order gradients: torch.autograd.gradgradcheck of fn at float64 host inputs placed
    on the device (the measured call is the check: finite differences of the first
    derivative against double backward)."""
    import torch

    tensors = [ctx.put(np.asarray(x, dtype="float64"), requires_grad=True) for x in inputs]
    ok = ctx.measure(
        torch.autograd.gradgradcheck, fn, tuple(tensors), eps=1e-6, atol=1e-5, warm=False
    )
    ctx.check(bool(ok), "double backward disagrees with finite differences of the gradient")


def rng_state(ctx):
    """(get, set) of the default generator of the cell's device: a checkpoint of the random
    state, restored to draw the same numbers again (no golden values: torch promises none)."""
    import torch

    if ctx.flavor == "cuda":
        return (
            lambda: torch.cuda.get_rng_state(ctx.device),
            lambda s: torch.cuda.set_rng_state(s, ctx.device),
        )
    if ctx.flavor == "tpu":
        import torch_xla.core.xla_model as xm

        return xm.get_rng_state, xm.set_rng_state
    return torch.get_rng_state, torch.set_rng_state


def saved(obj):
    """obj through torch.save and torch.load (bytes in memory): a checkpoint as users write it."""
    import io

    import torch

    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf)
