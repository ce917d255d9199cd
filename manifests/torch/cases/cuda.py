"""torch.cuda: the CUDA runtime module (devices, properties, memory, synchronize, streams).
On a cell without CUDA the cases skip: the module is about the CUDA device."""

import numpy as np

from portbench_runner.api import case


def _need_cuda(ctx):
    if ctx.flavor != "cuda":
        ctx.skip(f"torch.cuda is about CUDA devices; this cell's flavor is {ctx.flavor}")


@case("device-count-and-properties")
def cuda_properties(ctx):
    import torch

    _need_cuda(ctx)
    props = ctx.measure(torch.cuda.get_device_properties, 0)
    ctx.check(torch.cuda.device_count() >= 1 and props.total_memory > 0, f"properties {props}")


@case("memory-allocated-tracks-tensors")
def cuda_memory(ctx):
    import torch

    _need_cuda(ctx)
    before = torch.cuda.memory_allocated()
    x = torch.empty(64 * 1024 * 1024, dtype=torch.uint8, device=ctx.device)
    after = ctx.measure(torch.cuda.memory_allocated)
    ctx.check(after - before >= x.numel(), f"allocated grew by {after - before} bytes")


@case("synchronize-waits")
def cuda_synchronize(ctx):
    import torch

    _need_cuda(ctx)
    a = ctx.put(np.ones((2048, 2048), dtype="float32"))

    def run():
        out = a @ a
        torch.cuda.synchronize()
        return out

    ctx.check_close(ctx.to_numpy(ctx.measure(run))[0, :3], [2048.0] * 3, dtype="float32")


@case("device-construction")
def cuda_device(ctx):
    import torch

    _need_cuda(ctx)
    dev = ctx.measure(torch.device, "cuda", 0)
    ctx.check(dev.type == "cuda" and dev.index == 0, f"device {dev}")
