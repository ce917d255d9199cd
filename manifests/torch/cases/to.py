"""torch.Tensor.to: dtype conversions, to the device and back, copy semantics, non_blocking."""

import numpy as np
from _torchhelp import bf16_round, draw, is_exact, placed, quarters

from portbench_runner.api import case, sweep


@case("float32-to-float64", src="float32", dst="float64")
@case("float32-to-bfloat16", src="float32", dst="bfloat16")
@case("float64-to-int32", src="float64", dst="int32")
@case("float32-to-bool", src="float32", dst="bool")
@case("large-to-float16", src="float32", dst="float16", n=1_000_000)
def to_dtype(ctx, src, dst, n=1024):
    import torch

    x = (ctx.rng.standard_normal(n) * 50).astype(src)
    out = ctx.measure(ctx.put(x).to, getattr(torch, dst))
    ctx.check(
        out.dtype == getattr(torch, dst) and out.device.type == ctx.device.type,
        f"{out.dtype} on {out.device}",
    )
    if dst in ("int32", "bool"):
        ctx.check_equal(out, np.trunc(x).astype(dst) if dst == "int32" else x != 0)
    else:
        ctx.check_close(out, x.astype("float64"), dtype=dst)


@case("host-to-device-and-back")
def to_device_roundtrip(ctx):
    import torch

    x = torch.from_numpy(ctx.rng.standard_normal(4096).astype("float32"))
    on_device = ctx.measure(x.to, ctx.device)
    ctx.check(on_device.device.type == ctx.device.type, f"tensor went to {on_device.device}")
    ctx.check_equal(on_device.to("cpu").numpy(), x.numpy())


@case("same-dtype-returns-self")
def to_same(ctx):
    import torch

    x = ctx.put(np.ones(3, dtype="float32"))
    out = ctx.measure(x.to, torch.float32)
    ctx.check(out is x, "to() with nothing to change returned a copy")


SOURCES = (
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "int8",
    "int64",
    "uint8",
    "bool",
)
TARGETS = (
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex128",
    "int8",
    "int32",
    "int64",
    "uint8",
    "bool",
)


def _cast_reference(v, src, dst):
    """What casting the exact host values `v` (from `src`) to `dst` gives, in NumPy."""
    if dst.startswith("complex"):
        return v.astype("complex128")
    if src.startswith("complex"):
        # complex -> real keeps the real part (torch warns); -> bool asks "nonzero?".
        if dst == "bool":
            return v != 0
        v = v.real
    if dst == "bool":
        return v != 0
    if is_exact(dst):
        return np.trunc(v).astype(dst)  # toward zero; the drawn values fit every width
    return v.astype("float64")


# Quarter steps in [0, 64) are exact in every float width and fit int8 and uint8 once
# truncated, so every pair converts exactly (no out-of-range, implementation-defined casts).
@sweep("{src}-to-{dst}-sweep", src=SOURCES, dst=TARGETS)
def to_dtype_pairs(ctx, src, dst):
    import warnings

    import torch

    raw = draw(ctx, (6, 20), src, 0, 64)
    if not is_exact(src):
        raw = quarters(raw)
    x, x_h = placed(ctx, raw, src)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex -> real warns that it drops the imaginary part
        out = ctx.measure(x.to, getattr(torch, dst))
    ctx.check(out.dtype == getattr(torch, dst), f".to({dst}) gave {out.dtype}")
    ctx.check(out.device.type == ctx.device.type, f".to({dst}) moved it to {out.device}")
    expected = _cast_reference(x_h, src, dst)
    if dst == "bfloat16":
        expected = bf16_round(expected)
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype(expected.dtype), expected)


@sweep("compiled-to-{dst}-sweep", dst=TARGETS)
def to_compiled(ctx, dst):
    import torch

    raw = np.floor(ctx.rng.uniform(0, 64, size=(64,)) * 4) / 4
    dt = getattr(torch, dst)
    out = ctx.measure(ctx.in_mode("compiled", lambda t: t.to(dt)), ctx.put(raw.astype("float32")))
    ctx.check(out.dtype == dt, f"compiled .to({dst}) gave {out.dtype}")
    expected = _cast_reference(raw, "float32", dst)
    ctx.check_equal(np.asarray(ctx.to_numpy(out)).astype(expected.dtype), expected)


@sweep(
    "{form}-form",
    form=[
        "copy-true",
        "other-tensor",
        "device-and-dtype",
        "keeps-strides",
        "channels-last",
        "non-blocking",
        "grad-through-cast",
    ],
)
def to_forms(ctx, form):
    import torch

    x_np = ctx.rng.integers(-9, 9, size=(2, 3, 4, 5)).astype("float32")
    x = ctx.put(x_np)
    if form == "copy-true":
        out = ctx.measure(x.to, torch.float32, copy=True)
        ctx.check(out is not x and out.data_ptr() != x.data_ptr(), "copy=True did not copy")
        expected = x_np
    elif form == "other-tensor":
        other = ctx.put(np.zeros(1, dtype="float64"))
        out = ctx.measure(x.to, other)
        ctx.check(out.dtype == torch.float64, f".to(other) gave {out.dtype}, not other's dtype")
        expected = x_np.astype("float64")
    elif form == "device-and-dtype":
        out = ctx.measure(x.to, ctx.device, torch.int16)
        ctx.check(out.dtype == torch.int16, f".to(device, int16) gave {out.dtype}")
        expected = x_np.astype("int16")
    elif form == "keeps-strides":
        # preserve_format keeps a permuted (dense, non-contiguous) layout.
        view = x.permute(0, 2, 3, 1)
        out = ctx.measure(view.to, torch.float64)
        ctx.check(out.stride() == view.stride(), f"strides {out.stride()} vs {view.stride()}")
        expected = x_np.transpose(0, 2, 3, 1)
    elif form == "channels-last":
        out = ctx.measure(x.to, memory_format=torch.channels_last)
        ctx.check(
            out.is_contiguous(memory_format=torch.channels_last), "not channels_last", "other"
        )
        expected = x_np
    elif form == "non-blocking":
        out = ctx.measure(x.to, torch.float16, non_blocking=True)
        ctx.sync(out)
        expected = x_np.astype("float16")
    else:
        xg = ctx.put(x_np, requires_grad=True)

        def backward():
            xg.grad = None
            (xg.to(torch.float64) * 3).sum().backward()
            return xg.grad

        out = ctx.measure(backward)
        ctx.check(out.dtype == torch.float32, f"the gradient came back as {out.dtype}")
        expected = np.full(x_np.shape, 3.0, dtype="float32")
    ctx.check_equal(out, expected)


# The study's kinds of paths (issue #33): the refusals with class and message (channels_last
# for a rank other than 4; an unknown device string), vmap of a cast, second derivatives
# through a cast to complex, and an uncoalesced sparse tensor cast with its duplicate
# indices kept (they still add when densified).
@sweep("raises-{arg}", arg=["channels-last-rank", "unknown-device"])
def to_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    x = ctx.put(np.zeros((2, 3, 4), dtype="float32"))
    if arg == "channels-last-rank":
        refusal(
            ctx,
            lambda: x.to(memory_format=torch.channels_last),
            RuntimeError,
            "required rank 4 tensor",
        )
    else:
        refusal(ctx, lambda: x.to("float32x"), RuntimeError, "Invalid device string")


@sweep("vmap-to-{dst}", dst=["float64", "int32", "bool"])
def to_vmap(ctx, dst):
    import torch
    from _torchhelp import vmap

    raw = np.floor(ctx.rng.uniform(-8, 8, size=(4, 12)) * 4) / 4
    dt = getattr(torch, dst)
    out = ctx.measure(vmap(ctx)(lambda t: t.to(dt)), ctx.put(raw.astype("float32")))
    ctx.check(out.dtype == dt, f"vmap of .to({dst}) gave {out.dtype}", "type")
    ctx.check_equal(np.asarray(ctx.to_numpy(out)), _cast_reference(raw, "float32", dst))


@case("grad2-through-complex-cast")
def to_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    gradgradcheck(ctx, lambda t: (t.to(torch.complex128) ** 3).real, ctx.rng.standard_normal(6))


@case("duplicate-sparse-uncoalesced")
def to_duplicates(ctx):
    import torch

    if ctx.flavor not in ("cpu", "cuda"):
        ctx.skip(f"sparse COO tensors are CPU/CUDA only (this is {ctx.flavor})")
    idx = ctx.put(np.array([[1, 1, 1, 4]], dtype="int64"))
    s = torch.sparse_coo_tensor(
        idx, ctx.put(np.array([0.5, 0.25, 2.0, 3.0], dtype="float32")), (6,)
    )
    out = ctx.measure(s.to, torch.float64)
    ctx.check(out.dtype == torch.float64 and out.is_sparse, f"{out.dtype} {out.layout}", "type")
    ctx.check_equal(out.to_dense(), [0.0, 2.75, 0.0, 0.0, 3.0, 0.0])
