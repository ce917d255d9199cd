"""torch.cat: concatenation along dims, dtypes, empty tensors, autograd, torch.compile."""

import numpy as np

from portbench_runner.api import case, sweep


@case("float32-dim0", dtype="float32", dim=0)
@case("float64-dim1", dtype="float64", dim=1)
@case("bfloat16-dim0", dtype="bfloat16", dim=0)
@case("int64-dim1", dtype="int64", dim=1)
@case("bool-dim0", dtype="bool", dim=0)
def cat_values(ctx, dtype, dim):
    import torch

    parts = [
        ctx.rng.standard_normal((32, 16 + i)) if dim == 1 else ctx.rng.standard_normal((8 + i, 16))
        for i in range(3)
    ]
    if dtype == "int64":
        parts = [(p * 100).astype("int64") for p in parts]
    elif dtype == "bool":
        parts = [p > 0 for p in parts]
    else:
        parts = [p.astype("float32") for p in parts]
    tensors = [ctx.put(p, dtype=dtype) for p in parts]
    out = ctx.measure(torch.cat, tensors, dim=dim)
    expected = np.concatenate(parts, axis=dim)
    if dtype in ("int64", "bool"):
        ctx.check_equal(out, expected)
    else:
        ctx.check_close(out, expected.astype("float64"), dtype=dtype)


@case("empty-and-large")
def cat_empty_large(ctx):
    import torch

    big = ctx.rng.standard_normal((1_000_000,)).astype("float32")
    tensors = [ctx.put(np.zeros((0,), dtype="float32")), ctx.put(big), ctx.put(big[:10])]
    out = ctx.measure(torch.cat, tensors)
    ctx.check_close(out, np.concatenate([big, big[:10]]), dtype="float32")


@case("autograd-splits-gradient")
def cat_grad(ctx):
    import torch

    a = ctx.put(ctx.rng.standard_normal((4, 3)).astype("float32"), requires_grad=True)
    b = ctx.put(ctx.rng.standard_normal((2, 3)).astype("float32"), requires_grad=True)
    weights = ctx.put(np.arange(18, dtype="float32").reshape(6, 3))

    def forward_backward():
        a.grad = None
        b.grad = None
        (torch.cat([a, b]) * weights).sum().backward()
        return a.grad, b.grad

    grad_a, grad_b = ctx.measure(forward_backward)
    w = np.arange(18, dtype="float64").reshape(6, 3)
    ctx.check_close(grad_a, w[:4], dtype="float32", what="grad a")
    ctx.check_close(grad_b, w[4:], dtype="float32", what="grad b")


@case("compiled")
def cat_compiled(ctx):
    import torch

    parts = [ctx.rng.standard_normal((16, 8)).astype("float32") for _ in range(2)]
    fn = ctx.compiled(lambda x, y: torch.cat([x, y], dim=1))
    out = ctx.measure(fn, *(ctx.put(p) for p in parts))
    ctx.check_close(out, np.concatenate(parts, axis=1), dtype="float32")


@sweep(
    "{dtype}-sweep",
    dtype=["float16", "complex64", "complex128", "int8", "int16", "int32", "uint8"],
)
def cat_dtypes(ctx, dtype):
    import torch
    from _torchhelp import draw, placed

    a, a_h = placed(ctx, draw(ctx, (3, 4), dtype, 0, 9), dtype)
    b, b_h = placed(ctx, draw(ctx, (2, 4), dtype, 0, 9), dtype)
    ctx.check_equal(ctx.measure(torch.cat, [a, b]), np.concatenate([a_h, b_h]))


@sweep("{form}", form=["out", "empty-legacy", "channels-last"])
def cat_forms(ctx, form):
    import torch

    a_np = ctx.rng.standard_normal((2, 3, 4, 5)).astype("float32")
    a = ctx.put(a_np)
    if form == "out":
        buf = ctx.put(np.zeros((4, 3, 4, 5), dtype="float32"))
        ctx.measure(torch.cat, [a, a], out=buf, warm=False)
        ctx.check_equal(buf, np.concatenate([a_np, a_np]))
    elif form == "empty-legacy":
        # A 1-d empty tensor is skipped whatever the other inputs' shape (legacy behaviour).
        empty = ctx.put(np.zeros((0,), dtype="float32"))
        ctx.check_equal(ctx.measure(torch.cat, [a, empty]), a_np)
    else:
        cl = a.contiguous(memory_format=torch.channels_last)
        out = ctx.measure(torch.cat, [cl, cl], dim=1)
        ctx.check_equal(out, np.concatenate([a_np, a_np], axis=1))


# The study's kinds of paths (issue #33): the refusals with class and message, the grid of
# dim x out=, vmap, second derivatives, and uncoalesced sparse inputs whose duplicate
# indices survive concatenation (their values add when densified).
@sweep(
    "raises-{arg}",
    arg=["shape", "dim-out-of-range", "zero-dimensional", "out-overlaps-input"],
)
def cat_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    x = ctx.put(np.zeros((2, 3), dtype="float32"))
    whole = ctx.put(np.zeros((4, 3), dtype="float32"))
    attempt, error, fragment = {
        "shape": (
            lambda: torch.cat([x, ctx.put(np.zeros((2, 4), dtype="float32"))]),
            RuntimeError,
            "Sizes of tensors must match except in dimension 0",
        ),
        "dim-out-of-range": (lambda: torch.cat([x, x], dim=2), IndexError, "out of range"),
        "zero-dimensional": (
            lambda: torch.cat([x[0, 0], x[0, 1]]),
            RuntimeError,
            "zero-dimensional tensor",
        ),
        "out-overlaps-input": (
            # out= of the right size that is also the input (1.12 resizes a wrongly sized
            # out= before it checks for overlap, so the size must fit).
            lambda: torch.cat([whole[:2], whole[2:]], out=whole),
            RuntimeError,
            "single memory location",
        ),
    }[arg]
    refusal(ctx, attempt, error, fragment)


@sweep("flags-{dim}-{out}", dim=["dim0", "dim1", "dim-minus1"], out=["returned", "out"])
def cat_grid(ctx, dim, out):
    import torch

    axis = {"dim0": 0, "dim1": 1, "dim-minus1": -1}[dim]
    parts = [ctx.rng.standard_normal((3, 4, 2)) for _ in range(3)]
    expected = np.concatenate(parts, axis=axis)
    tensors = [ctx.put(p) for p in parts]
    if out == "out":
        buf = ctx.put(np.zeros(expected.shape))
        result = ctx.measure(torch.cat, tensors, dim=axis, out=buf, warm=False)
        ctx.check(result.data_ptr() == buf.data_ptr(), "out= returned another tensor")
        ctx.check_equal(buf, expected)
    else:
        ctx.check_equal(ctx.measure(torch.cat, tensors, dim=axis), expected)


@case("vmap-pairs")
def cat_vmap(ctx):
    import torch
    from _torchhelp import vmap

    a_np, b_np = ctx.rng.standard_normal((4, 3, 2)), ctx.rng.standard_normal((4, 5, 2))
    out = ctx.measure(vmap(ctx)(lambda a, b: torch.cat([a, b])), ctx.put(a_np), ctx.put(b_np))
    ctx.check_equal(out, np.concatenate([a_np, b_np], axis=1))


@case("grad2-gradgradcheck")
def cat_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    gradgradcheck(
        ctx,
        lambda a, b: torch.cat([a * b[:2], b.sin()]) ** 2,
        ctx.rng.standard_normal((2, 3)),
        ctx.rng.standard_normal((4, 3)),
    )


@case("duplicate-sparse-uncoalesced")
def cat_duplicates(ctx):
    import torch

    if ctx.flavor not in ("cpu", "cuda"):
        ctx.skip(f"sparse COO tensors are CPU/CUDA only (this is {ctx.flavor})")
    # Index 1 appears twice in each part (an uncoalesced COO tensor).
    idx = ctx.put(np.array([[1, 1, 3]], dtype="int64"))
    a = torch.sparse_coo_tensor(idx, ctx.put(np.array([1.0, 2.0, 4.0])), (5,))
    b = torch.sparse_coo_tensor(idx, ctx.put(np.array([10.0, 20.0, 40.0])), (5,))
    out = ctx.measure(torch.cat, [a, b])
    ctx.check(out.is_sparse and out.shape == (10,), f"cat gave {out.layout} {tuple(out.shape)}")
    ctx.check_equal(out.to_dense(), [0, 3, 0, 4, 0, 0, 30, 0, 40, 0])
