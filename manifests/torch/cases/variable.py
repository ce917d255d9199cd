"""torch.autograd.Variable: the legacy wrapper returns a Tensor that tracks gradients."""

import numpy as np
from _torchhelp import COMPLEX_DTYPES, FLOAT_DTYPES, INT_DTYPES, draw, placed

from portbench_runner.api import case, sweep


@case("wraps-values")
@case("wraps-values-float64", dtype="float64")
def variable_values(ctx, dtype="float32"):
    import torch

    x = ctx.put(ctx.rng.standard_normal(64).astype(dtype))
    v = ctx.measure(torch.autograd.Variable, x)
    ctx.check(isinstance(v, torch.Tensor), f"Variable gave a {type(v).__name__}")
    ctx.check_equal(v, ctx.to_numpy(x))


@case("requires-grad-backward")
def variable_grad(ctx):
    import torch

    x = ctx.put(np.array([1.0, 2.0, 3.0], dtype="float32"))

    def backward():
        v = torch.autograd.Variable(x, requires_grad=True)
        (v**2).sum().backward()
        return v.grad

    ctx.check_close(ctx.measure(backward), [2.0, 4.0, 6.0], dtype="float32")


@case("volatile-default-no-grad")
def variable_no_grad(ctx):
    import torch

    v = ctx.measure(torch.autograd.Variable, ctx.put(np.ones(2, dtype="float32")))
    ctx.check(not v.requires_grad, "Variable requires grad by default")


# Variable wraps a tensor of any dtype unchanged (it is the tensor itself since torch 0.4).
@sweep("{dtype}-sweep", dtype=FLOAT_DTYPES + COMPLEX_DTYPES + INT_DTYPES + ("bool",))
def variable_dtypes(ctx, dtype):
    import torch

    x, _x_h = placed(ctx, draw(ctx, (64,), dtype, 0, 9), dtype)
    v = ctx.measure(torch.autograd.Variable, x)
    ctx.check(v.dtype == x.dtype and not v.requires_grad, f"Variable gave {v.dtype}")
    ctx.check_equal(ctx.to_numpy(v), ctx.to_numpy(x))


# requires_grad=True holds for floating and complex dtypes; integers and bool are refused.
@sweep(
    "requires-grad-{dtype}-sweep",
    dtype=FLOAT_DTYPES + COMPLEX_DTYPES + ("int32", "int64", "uint8", "bool"),
)
def variable_requires_grad(ctx, dtype):
    import torch

    x = ctx.put(draw(ctx, (8,), dtype, 1, 4), dtype=dtype)

    def wrap():
        try:
            return torch.autograd.Variable(x, requires_grad=True)
        except RuntimeError:
            return None

    v = ctx.measure(wrap)
    differentiable = dtype.startswith(("float", "bfloat", "complex"))
    if not differentiable:
        ctx.check(v is None, f"a {dtype} Variable was allowed to require grad", "other")
        return
    ctx.check(v is not None and v.requires_grad and v.is_leaf, f"{dtype} Variable has no grad")
    host = np.asarray(ctx.to_numpy(x))
    if dtype.startswith("complex"):
        # For a real loss of a complex leaf autograd returns dL/dre + i dL/dim: for
        # L = Re(z^2) that is 2 conj(z).
        (v * v).real.sum().backward()
        expected = 2 * np.conj(host.astype("complex128"))
    else:
        (v * v).sum().backward()
        expected = 2 * host.astype("float64")
    ctx.check_close(v.grad, expected, rtol=2e-2, atol=2e-2)


@case("detaches-from-graph")
def variable_detaches(ctx):
    import torch

    # Variable(t) makes a new leaf over t's storage: history stops there, data is shared.
    x = ctx.put(ctx.rng.standard_normal(6).astype("float32"), requires_grad=True)
    y = x * 2
    v = ctx.measure(torch.autograd.Variable, y)
    ctx.check(v.grad_fn is None and not v.requires_grad, "Variable kept the autograd history")
    ctx.check(v.data_ptr() == y.data_ptr(), "Variable copied the data", "other")
    ctx.check_equal(v, ctx.to_numpy(y))


@case("leaf-accumulates-float64")
def variable_accumulates(ctx):
    import torch

    # A Variable leaf accumulates gradients across backward calls: d(v^3)/dv twice.
    x_np = ctx.rng.standard_normal(6)
    v = torch.autograd.Variable(ctx.put(x_np), requires_grad=True)

    def twice():
        v.grad = None
        for _ in range(2):
            (v**3).sum().backward()
        return v.grad

    ctx.check_close(ctx.measure(twice), 6 * x_np**2, dtype="float64")


# The study's kinds of paths (issue #33): the refusals with class and message (data that is
# no tensor; an integer leaf that requires grad), and second derivatives through a
# Variable leaf (d2/dv2 of v^3 is 6v, by double backward).
@sweep("raises-{arg}", arg=["not-a-tensor", "int-requires-grad"])
def variable_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    if arg == "not-a-tensor":
        refusal(
            ctx, lambda: torch.autograd.Variable(3), TypeError, "Variable data has to be a tensor"
        )
    else:
        ints = ctx.put(np.arange(3, dtype="int64"))
        refusal(
            ctx,
            lambda: torch.autograd.Variable(ints, requires_grad=True),
            RuntimeError,
            "Only Tensors of floating point and complex dtype can require gradients",
        )


@case("grad2-double-backward")
def variable_grad2(ctx):
    import torch

    x_np = ctx.rng.standard_normal(5)
    v = torch.autograd.Variable(ctx.put(x_np), requires_grad=True)

    def second():
        (g,) = torch.autograd.grad((v**3).sum(), v, create_graph=True)
        (h,) = torch.autograd.grad(g.sum(), v)
        return h

    ctx.check_close(ctx.measure(second), 6 * x_np, dtype="float64")
