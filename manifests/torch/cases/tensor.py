"""torch.tensor: from lists, nested lists, NumPy arrays (copied), scalars, dtypes, device."""

import numpy as np
from _torchhelp import (
    COMPLEX_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    bf16_round,
    draw,
    is_exact,
    quarters,
)

from portbench_runner.api import case, sweep


@case("from-list", value=[1.5, 2.5, 3.5])
@case("nested", value=[[1, 2], [3, 4]])
@case("scalar", value=7.25)
@case("bools", value=[True, False])
def tensor_from_python(ctx, value):
    import torch

    out = ctx.measure(torch.tensor, value, device=ctx.device)
    ctx.check_equal(out, np.array(value))


@case("from-numpy-float64", dtype="float64")
@case("to-bfloat16", dtype="bfloat16")
@case("large", dtype="float32", n=1_000_000)
def tensor_from_numpy(ctx, dtype, n=4096):
    import torch

    x = ctx.rng.standard_normal(n).astype("float32" if dtype == "bfloat16" else dtype)
    out = ctx.measure(torch.tensor, x, dtype=getattr(torch, dtype), device=ctx.device)
    ctx.check_close(out, x.astype("float64"), dtype=dtype)


@case("copies-its-input")
def tensor_copies(ctx):
    import torch

    x = np.arange(4, dtype="float32")
    out = ctx.measure(torch.tensor, x, device=ctx.device, warm=False)
    x[0] = 99.0
    ctx.check(
        float(ctx.to_numpy(out)[0]) == 0.0,
        "torch.tensor shares memory with its NumPy input",
        category="other",
    )


# torch.tensor(data, dtype=) for every dtype the CPU holds, from a NumPy array and from a
# nested Python list. Quarter steps in [0, 64) are exact in every float width (bfloat16
# included), so all but the bfloat16 rounding compare exactly.
@sweep(
    "{dtype}-{source}-sweep",
    dtype=FLOAT_DTYPES + COMPLEX_DTYPES + INT_DTYPES + ("bool",),
    source=["numpy", "list"],
)
def tensor_dtypes(ctx, dtype, source):
    import torch

    raw = draw(ctx, (8, 16), dtype, 0, 64)
    if not is_exact(dtype):
        raw = quarters(raw)
    data = raw.tolist() if source == "list" else raw
    out = ctx.measure(torch.tensor, data, dtype=getattr(torch, dtype), device=ctx.device)
    ctx.check(str(out.dtype) == f"torch.{dtype}", f"torch.tensor gave {out.dtype}")
    ctx.check(out.device.type == ctx.device.type, f"torch.tensor placed it on {out.device}")
    ctx.check_equal(out, raw if dtype != "bfloat16" else bf16_round(raw).astype("float32"))


# torch.tensor inside a compiled function: the constant is built on each call.
@sweep("compiled-{dtype}-sweep", dtype=FLOAT_DTYPES + ("complex64", "int64", "bool"))  # noqa: RUF005
def tensor_compiled(ctx, dtype):
    import torch

    values = [[0, 1, 2], [3, 4, 5]]
    dt, dev = getattr(torch, dtype), ctx.device
    fn = ctx.in_mode("compiled", lambda: torch.tensor(values, dtype=dt, device=dev))
    out = ctx.measure(fn)
    ctx.check(out.dtype == dt, f"compiled torch.tensor gave {out.dtype}")
    ctx.check_equal(out, np.array(values).astype("float32" if dtype == "bfloat16" else dtype))


@sweep(
    "{form}-form",
    form=[
        "infers-float32",
        "infers-int64",
        "infers-complex",
        "empty-list",
        "requires-grad",
        "from-tensor-copies",
        "non-contiguous-numpy",
        "0d-numpy",
    ],
)
def tensor_forms(ctx, form):
    import warnings

    import torch

    if form == "infers-float32":
        # Mixed ints and floats infer the default dtype, float32.
        out, want, expected = ctx.measure(torch.tensor, [1, 2.5]), torch.float32, [1.0, 2.5]
    elif form == "infers-int64":
        out, want, expected = ctx.measure(torch.tensor, [True, 3]), torch.int64, [1, 3]
    elif form == "infers-complex":
        out, want, expected = ctx.measure(torch.tensor, [1, 2j]), torch.complex64, [1, 2j]
    elif form == "empty-list":
        out, want, expected = ctx.measure(torch.tensor, []), torch.float32, np.zeros((0,))
    elif form == "requires-grad":
        out = ctx.measure(torch.tensor, [1.0, 2.0], device=ctx.device, requires_grad=True)
        ctx.check(out.requires_grad and out.is_leaf, "requires_grad=True gave no grad leaf")
        (out * out).sum().backward()
        out, want, expected = out.grad, torch.float32, [2.0, 4.0]
    elif form == "from-tensor-copies":
        src = ctx.put(np.arange(4, dtype="float32"))
        with warnings.catch_warnings():
            # torch.tensor(tensor) warns to use clone().detach(); the warning is documented.
            warnings.simplefilter("ignore")
            out = ctx.measure(torch.tensor, src, warm=False)
        ctx.check(out.data_ptr() != src.data_ptr(), "torch.tensor(tensor) shares memory", "other")
        want, expected = torch.float32, np.arange(4)
    elif form == "non-contiguous-numpy":
        base = np.arange(24, dtype="float64").reshape(4, 6)
        out, want, expected = (
            ctx.measure(torch.tensor, base[:, ::2].T),
            torch.float64,
            base[:, ::2].T,
        )
    else:
        out, want, expected = ctx.measure(torch.tensor, np.float64(2.5)), torch.float64, 2.5
    ctx.check(out.dtype == want, f"torch.tensor gave {out.dtype}, not {want}")
    ctx.check_equal(out, np.asarray(expected))


# The study's kinds of paths (issue #33): the documented refusals of data torch.tensor
# cannot hold, class and message (a ragged nested list, strings, a complex value for a real
# dtype), and indexing forms of the nested-list input (rows taken from a list of lists
# and from a NumPy view keep their order and values).
@sweep("raises-{arg}", arg=["ragged", "strings", "complex-to-real"])
def tensor_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    dev = ctx.device
    attempt, error, fragment = {
        "ragged": (
            lambda: torch.tensor([[1, 2], [3]], device=dev),
            ValueError,
            "expected sequence of length 2",
        ),
        "strings": (
            lambda: torch.tensor(["a"], device=dev),
            ValueError,
            "too many dimensions 'str'",
        ),
        "complex-to-real": (
            lambda: torch.tensor([1j], dtype=torch.float32, device=dev),
            TypeError,
            "complex",
        ),
    }[arg]
    refusal(ctx, attempt, error, fragment)


@sweep("index-{form}", form=["list-rows-reversed", "numpy-column-view", "numpy-fancy"])
def tensor_indexing(ctx, form):
    import torch

    base = ctx.rng.integers(-50, 50, size=(5, 6)).astype("float64")
    data = {
        "list-rows-reversed": base.tolist()[::-1],
        "numpy-column-view": base[:, 2],
        "numpy-fancy": base[[4, 0, 2]][:, [5, 1]],
    }[form]
    out = ctx.measure(torch.tensor, data, device=ctx.device)
    ctx.check_equal(out, np.asarray(data))
