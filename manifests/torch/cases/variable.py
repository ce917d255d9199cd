"""torch.autograd.Variable: the legacy wrapper returns a Tensor that tracks gradients."""

import numpy as np

from portbench_runner.api import case


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
