"""torch.log1p: accurate log(1 + x) near zero, dtypes, -1 gives -inf, autograd, sparse."""

import numpy as np
from _torchhelp import ALL_INTS, EAGER_COMPILED, FLOAT_DTYPES, grad_matches, unary

from portbench_runner.api import case, sweep


@case("float32", dtype="float32")
@case("float64", dtype="float64")
@case("bfloat16", dtype="bfloat16")
@case("large", dtype="float32", shape=(1_000_000,))
def log1p_values(ctx, dtype, shape=(1024,)):
    import torch

    unary(ctx, torch.log1p, np.log1p, dtype=dtype, shape=shape, lo=-0.9, hi=10)


@case("tiny-inputs-keep-precision")
def log1p_tiny(ctx):
    import torch

    x = np.array([1e-10, -1e-12, 1e-7], dtype="float64")
    ctx.check_close(ctx.measure(torch.log1p, ctx.put(x)), np.log1p(x), dtype="float64")


@case("grad")
def log1p_grad(ctx):
    import torch

    grad_matches(ctx, torch.log1p, lambda x: 1 / (1 + x), lo=0, hi=5)


@case("sparse-coo")
def log1p_sparse(ctx):
    import torch

    dense = np.zeros((4, 5), dtype="float32")
    dense[1, 2], dense[3, 0] = 0.5, 2.0
    sparse = ctx.put(dense).to_sparse()
    out = ctx.measure(torch.log1p, sparse)
    ctx.check_close(out.to_dense(), np.log1p(dense.astype("float64")), dtype="float32")


# Every dtype torch.log1p takes on the CPU (integers promote to the default float), in each
# mode, and the argument forms users rely on: out=, in-place, a non-contiguous view.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOAT_DTYPES + ALL_INTS,
    mode=EAGER_COMPILED,
)
def log1p_dtypes(ctx, dtype, mode):
    import torch
    from _torchhelp import RTOL, draw, placed

    x, x_h = placed(ctx, draw(ctx, (257,), dtype, 0, 9), dtype)
    out = ctx.measure(ctx.in_mode(mode, torch.log1p), x)
    ref_dtype = dtype if dtype in RTOL else "float32"
    ctx.check_close(
        out, np.log1p(x_h.astype("float64")), rtol=RTOL[ref_dtype], atol=RTOL[ref_dtype]
    )


@sweep("{form}", form=["out", "in-place", "non-contiguous"])
def log1p_forms(ctx, form):
    import torch

    x_np = ctx.rng.uniform(0, 4, size=(16, 32)).astype("float32")
    x = ctx.put(x_np)
    expected = np.log1p(x_np.astype("float64"))
    if form == "out":
        buf = ctx.put(np.zeros((16, 32), dtype="float32"))
        ctx.measure(torch.log1p, x, out=buf, warm=False)
        result = buf
    elif form == "in-place":
        result = ctx.measure(torch.Tensor.log1p_, x, warm=False)
    else:
        view = x.t()  # a transposed view: strides (1, 32)
        ctx.check(not view.is_contiguous(), "the input is a non-contiguous view", "other")
        result = ctx.measure(torch.log1p, view)
        expected = expected.T
    ctx.check_close(result, expected, dtype="float32")


@sweep("sparse-coo-{dtype}", dtype=["float64", "int64"])
def log1p_sparse_dtypes(ctx, dtype):
    import torch

    dense = np.zeros((4, 5), dtype=dtype)
    dense[1, 2], dense[3, 0] = 1, 2
    sparse = ctx.put(dense).to_sparse()
    out = ctx.measure(torch.log1p, sparse)
    ctx.check_close(out.to_dense(), np.log1p(dense.astype("float64")), rtol=1e-6, atol=1e-6)


# The study's kinds of paths (issue #33): the refusals of integer results (out= and the
# in-place method; class and message), vmap, second derivatives, indexing forms (the
# in-place method on a strided slice, a row, a boolean mask), and an uncoalesced sparse
# input whose duplicate indices are summed before log1p (log1p(1 + 2), not log1p(1) +
# log1p(2)).
@sweep("raises-{arg}", arg=["out-int", "in-place-int"])
def log1p_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    x = ctx.put(np.ones(4, dtype="float32"))
    ints = ctx.put(np.ones(4, dtype="int64"))
    attempt = (lambda: torch.log1p(x, out=ints)) if arg == "out-int" else ints.log1p_
    refusal(ctx, attempt, RuntimeError, "can't be cast to the desired output type Long")


@case("vmap-batch")
def log1p_vmap(ctx):
    import torch
    from _torchhelp import vmap

    x = ctx.rng.uniform(-0.9, 5, size=(4, 50))
    ctx.check_close(ctx.measure(vmap(ctx)(torch.log1p), ctx.put(x)), np.log1p(x), dtype="float64")


@case("grad2-gradgradcheck")
def log1p_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    gradgradcheck(ctx, torch.log1p, ctx.rng.uniform(0, 4, size=10))


@sweep("index-{form}", form=["slice-step", "row", "mask"])
def log1p_indexing(ctx, form):
    x_np = ctx.rng.uniform(0, 4, size=(4, 6))
    x = ctx.put(x_np)
    expected = x_np.copy()
    if form == "slice-step":
        ctx.measure(x[:, 1::2].log1p_, warm=False)
        expected[:, 1::2] = np.log1p(expected[:, 1::2])
    elif form == "row":
        ctx.measure(x[-1].log1p_, warm=False)
        expected[-1] = np.log1p(expected[-1])
    else:
        mask_np = x_np > 2
        mask = ctx.put(mask_np)

        def masked():
            x[mask] = x[mask].log1p()

        ctx.measure(masked, warm=False)
        expected[mask_np] = np.log1p(expected[mask_np])
    ctx.check_close(x, expected, dtype="float64")


@case("duplicate-sparse-uncoalesced")
def log1p_duplicates(ctx):
    import torch

    if ctx.flavor not in ("cpu", "cuda"):
        ctx.skip(f"sparse COO tensors are CPU/CUDA only (this is {ctx.flavor})")
    idx = ctx.put(np.array([[0, 0, 2, 2, 2]], dtype="int64"))
    s = torch.sparse_coo_tensor(idx, ctx.put(np.array([1.0, 2.0, 0.5, 0.25, 0.25])), (4,))
    out = ctx.measure(torch.log1p, s)
    ctx.check(out.is_sparse, f"log1p of a sparse tensor gave {out.layout}")
    ctx.check_close(out.to_dense(), np.log1p([3.0, 0.0, 1.0, 0.0]), dtype="float64")
