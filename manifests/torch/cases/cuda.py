"""torch.cuda: the CUDA runtime module (devices, properties, memory, synchronize, streams).
On a cell without CUDA the cases skip: the module is about the CUDA device."""

import numpy as np
from _torchhelp import ALL_INTS, BOOL, COMPLEXES, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


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


# What the module answers on any cell, CUDA or not: availability and the device count agree,
# and without CUDA placing a tensor on it is refused (not silently put on the CPU).
@sweep("{form}-sweep", form=["queries-agree", "unavailable-refuses-tensors"])
def cuda_any_cell(ctx, form):
    import torch

    if form == "queries-agree":
        available = ctx.measure(torch.cuda.is_available)
        count = torch.cuda.device_count()
        ctx.check(isinstance(available, bool), f"is_available gave {available!r}", "other")
        ctx.check(available == (count > 0), f"is_available {available}, device_count {count}")
        return
    if torch.cuda.is_available():
        ctx.skip("CUDA is available here: nothing to refuse")

    def attempt():
        try:
            torch.zeros(1, device="cuda")
        except (AssertionError, RuntimeError):
            return True
        return False

    # One call, not warm repeats: in torch 1.12.0+cu102 without a driver the first attempt
    # raises ("Found no NVIDIA driver") but a second one hangs (never returns).
    ok = ctx.measure(attempt, warm=False)
    ctx.check(ok, "a tensor was placed on an unavailable CUDA device", "other")


# On a CUDA cell: tensors of every dtype round-trip to the device and back unchanged.
@sweep("to-device-{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS + COMPLEXES + ALL_INTS + BOOL)
def cuda_dtypes(ctx, dtype):
    import torch
    from _torchhelp import small_ints

    _need_cuda(ctx)
    x = small_ints(ctx, (8, 8), dtype)
    host = torch.from_numpy(x).to(getattr(torch, dtype))
    on_device = ctx.measure(lambda: host.to("cuda", non_blocking=False))
    ctx.check(on_device.is_cuda and on_device.dtype == host.dtype, f"{on_device.device}")
    ctx.check_equal(on_device.cpu(), x.astype("float32") if dtype == "bfloat16" else x)


@sweep(
    "{form}-sweep",
    form=[
        "stream-ordering",
        "event-elapsed-time",
        "manual-seed-repeats",
        "empty-cache",
        "current-device",
        "pinned-non-blocking",
    ],
)
def cuda_forms(ctx, form):
    import torch

    _need_cuda(ctx)
    if form == "stream-ordering":
        # Work queued on a side stream, then the default stream waits for it.
        side = torch.cuda.Stream()
        a = ctx.put(np.ones((256, 256), dtype="float32"))

        def run():
            side.wait_stream(torch.cuda.current_stream())  # `a` was made on the default one
            with torch.cuda.stream(side):
                out = a * 3
            torch.cuda.current_stream().wait_stream(side)
            return out + 1

        ctx.check_equal(ctx.measure(run), np.full((256, 256), 4.0))
    elif form == "event-elapsed-time":
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a = ctx.put(np.ones((512, 512), dtype="float32"))

        def run():
            start.record()
            out = a @ a
            end.record()
            end.synchronize()
            return out

        ctx.measure(run)
        ctx.check(start.elapsed_time(end) >= 0, "negative elapsed time", "other")
    elif form == "manual-seed-repeats":
        ctx.not_comparable("draws from the device's random generator")

        def draw():
            torch.cuda.manual_seed(ctx.seed)
            return torch.rand(64, device="cuda")

        first = ctx.to_numpy(ctx.measure(draw))
        ctx.check_equal(draw(), first)
    elif form == "empty-cache":
        x = torch.empty(32 * 1024 * 1024, dtype=torch.uint8, device="cuda")
        del x
        ctx.measure(torch.cuda.empty_cache, warm=False)
        ctx.check(torch.cuda.memory_allocated() >= 0, "negative allocation", "other")
    elif form == "current-device":
        index = ctx.measure(torch.cuda.current_device)
        ctx.check(0 <= index < torch.cuda.device_count(), f"current device {index}")
    else:
        pinned = torch.arange(1024, dtype=torch.float32).pin_memory()
        out = ctx.measure(lambda: pinned.to("cuda", non_blocking=True))
        torch.cuda.synchronize()
        ctx.check_equal(out, np.arange(1024, dtype="float32"))


# The study's kinds of paths (issue #33), on a CUDA cell: the documented refusal of a device
# index past the count (class and message), and the device generator's state saved and
# restored draws the same numbers again. On other cells these skip: a second attempt to
# initialise CUDA without a driver hangs torch 1.12 (see unavailable-refuses-tensors).
@case("raises-device-index-past-count")
def cuda_bad_index(ctx):
    import torch
    from _torchhelp import refusal

    _need_cuda(ctx)
    count = torch.cuda.device_count()
    refusal(
        ctx, lambda: torch.cuda.get_device_properties(count), AssertionError, "Invalid device id"
    )


@case("checkpoint-rng-state")
def cuda_rng_restore(ctx):
    import torch

    _need_cuda(ctx)
    ctx.not_comparable("draws from the device's random generator")
    torch.cuda.manual_seed(ctx.seed)
    state = torch.cuda.get_rng_state(ctx.device)
    first = ctx.to_numpy(torch.rand(256, device=ctx.device))

    def replay():
        torch.cuda.set_rng_state(state, ctx.device)
        return torch.rand(256, device=ctx.device)

    ctx.check_equal(ctx.measure(replay), first)
