"""torch.cuda.Stream.synchronize: work queued on a stream is finished when it returns.
On a cell without CUDA the cases skip: streams are CUDA's."""

import numpy as np

from portbench_runner.api import case


def _stream(ctx):
    import torch

    if ctx.flavor != "cuda":
        ctx.skip(f"CUDA streams need a CUDA device; this cell's flavor is {ctx.flavor}")
    return torch.cuda.Stream(device=ctx.device)


@case("side-stream-result-ready")
def synchronize_side_stream(ctx):
    import torch

    stream = _stream(ctx)
    a = ctx.put(np.ones((1024, 1024), dtype="float32"))
    with torch.cuda.stream(stream):
        out = a @ a
    ctx.measure(stream.synchronize)
    ctx.check(stream.query(), "the stream still has work after synchronize")
    ctx.check_close(ctx.to_numpy(out)[0, :2], [1024.0, 1024.0], dtype="float32")


@case("event-ordering")
def synchronize_events(ctx):
    import torch

    stream = _stream(ctx)
    event = torch.cuda.Event()
    with torch.cuda.stream(stream):
        x = ctx.put(np.arange(4, dtype="float32")) * 2
        event.record(stream)
    ctx.measure(stream.synchronize)
    ctx.check(event.query(), "the recorded event is not complete")
    ctx.check_equal(x, [0.0, 2.0, 4.0, 6.0])


@case("empty-stream")
def synchronize_empty(ctx):
    stream = _stream(ctx)
    ctx.measure(stream.synchronize)
    ctx.check(stream.query(), "an empty stream reports pending work")
