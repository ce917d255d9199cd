"""torch.Tensor.to: dtype conversions, to the device and back, copy semantics, non_blocking."""

import numpy as np

from portbench_runner.api import case


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
