"""torch.optim.LBFGS: minimizes smooth functions through its closure (quadratic, Rosenbrock)."""

import numpy as np

from portbench_runner.api import case


@case("quadratic")
@case("quadratic-float64", dtype="float64")
def lbfgs_quadratic(ctx, dtype="float32"):
    import torch

    a = np.diag(np.arange(1.0, 9.0)).astype(dtype)
    b = ctx.rng.standard_normal(8).astype(dtype)
    A, B = ctx.put(a), ctx.put(b)
    x = torch.nn.Parameter(ctx.put(np.zeros(8, dtype=dtype)))
    opt = torch.optim.LBFGS([x], lr=1, max_iter=100, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = 0.5 * x @ (A @ x) - B @ x
        loss.backward()
        return loss

    ctx.measure(opt.step, closure, warm=False)
    ctx.check_close(
        x.detach(), np.linalg.solve(a.astype("float64"), b.astype("float64")), rtol=1e-3, atol=1e-3
    )


@case("rosenbrock")
def lbfgs_rosenbrock(ctx):
    import torch

    x = torch.nn.Parameter(ctx.put(np.array([-1.5, 2.0], dtype="float64")))
    opt = torch.optim.LBFGS(
        [x],
        lr=1,
        max_iter=500,
        tolerance_grad=1e-10,
        tolerance_change=1e-14,
        line_search_fn="strong_wolfe",
    )

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss

    ctx.measure(opt.step, closure, warm=False)
    ctx.check_close(x.detach(), [1.0, 1.0], rtol=1e-4, atol=1e-4)


@case("loss-decreases-without-line-search")
def lbfgs_plain(ctx):
    import torch

    x = torch.nn.Parameter(ctx.put(np.full(4, 3.0, dtype="float32")))
    opt = torch.optim.LBFGS([x], lr=0.5, max_iter=20)

    def closure():
        opt.zero_grad()
        loss = (x**2).sum()
        loss.backward()
        return loss

    first = float(closure())
    ctx.measure(opt.step, closure, warm=False)
    ctx.check(float(closure()) < first * 1e-2, "the loss did not drop")
