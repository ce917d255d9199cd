"""torch.cuda.Stream.synchronize: work queued on a stream is finished when it returns.
On a cell without CUDA the cases skip: streams are CUDA's."""

import numpy as np
from _torchhelp import FLOAT_DTYPES, INT_DTYPES

from portbench_runner.api import case, sweep


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


# Work of each dtype queued on a side stream is complete and correct after synchronize.
# Like the cases above these need CUDA; on a CPU cell they skip.
@sweep("{dtype}-side-stream-sweep", dtype=FLOAT_DTYPES + INT_DTYPES)
def synchronize_dtypes(ctx, dtype):
    import torch

    stream = _stream(ctx)
    x_np = np.arange(256).reshape(16, 16) % 50
    x = ctx.put(x_np.astype("float32" if dtype == "bfloat16" else dtype), dtype=dtype)
    torch.cuda.current_stream(ctx.device).synchronize()  # x is ready before the side stream
    with torch.cuda.stream(stream):
        out = x * 2 + 1
    ctx.measure(stream.synchronize)
    ctx.check(stream.query(), "the stream still has work after synchronize")
    expected = x_np * 2 + 1
    if dtype in ("int8", "uint8"):
        expected = expected.astype(dtype)  # wraps like the dtype (values up to 99 fit anyway)
    ctx.check_equal(np.asarray(ctx.to_numpy(out), dtype="float64"), expected.astype("float64"))


@sweep("{form}-form", form=["wait-stream", "high-priority", "repeated-calls"])
def synchronize_forms(ctx, form):
    import torch

    stream = _stream(ctx)
    if form == "high-priority":
        # A lower number is a higher priority; out-of-range values map to the nearest valid.
        stream = torch.cuda.Stream(device=ctx.device, priority=-1)
    a = ctx.put(np.ones((512, 512), dtype="float32"))
    if form == "wait-stream":
        # A second stream waits for the first: after synchronizing it both results are done.
        other = torch.cuda.Stream(device=ctx.device)
        with torch.cuda.stream(stream):
            first = a @ a
        other.wait_stream(stream)
        with torch.cuda.stream(other):
            second = first + 1
        ctx.measure(other.synchronize)
        ctx.check(stream.query() and other.query(), "a stream still has work")
        ctx.check_close(ctx.to_numpy(second)[0, :2], [513.0, 513.0], dtype="float32")
    elif form == "high-priority":
        with torch.cuda.stream(stream):
            out = a * 3
        ctx.measure(stream.synchronize)
        ctx.check(stream.query(), "the high-priority stream still has work")
        ctx.check_equal(ctx.to_numpy(out)[:2, 0], [3.0, 3.0])
    else:
        with torch.cuda.stream(stream):
            out = a.sum()
        stream.synchronize()
        ctx.measure(stream.synchronize)  # a second call on a drained stream returns at once
        ctx.check(stream.query(), "a drained stream reports pending work")
        ctx.check_close(ctx.to_numpy(out), 512.0 * 512.0, dtype="float32")


# The study's kinds of paths (issue #33), on a CUDA cell: the documented refusal of a
# stream on the CPU device (class and message). On other cells it skips: asking for a
# stream there reaches CUDA's initialisation, which a second time hangs torch 1.12 without
# a driver (see torch.cuda's unavailable-refuses-tensors).
@case("raises-cpu-device")
def synchronize_raises(ctx):
    import torch
    from _torchhelp import refusal

    _stream(ctx)
    refusal(
        ctx,
        lambda: torch.cuda.Stream(device="cpu"),
        ValueError,
        "Expected a cuda device, but got: cpu",
    )
