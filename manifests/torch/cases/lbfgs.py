"""torch.optim.LBFGS: minimizes smooth functions through its closure (quadratic, Rosenbrock)."""

import numpy as np
from _torchhelp import FULL_FLOATS

from portbench_runner.api import case, sweep


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


# A convex quadratic (diagonal plus a rank-one coupling) in each float dtype LBFGS is used
# with, with and without the strong-Wolfe line search, and a short history.
@sweep(
    "{dtype}-{search}-sweep",
    dtype=FULL_FLOATS,
    search=["none", "strong-wolfe", "history-2"],
)
def lbfgs_dtypes(ctx, dtype, search):
    import torch

    u = ctx.rng.standard_normal(6)
    a = np.diag(np.linspace(1.0, 4.0, 6)) + 0.3 * np.outer(u, u)
    b = ctx.rng.standard_normal(6)
    A, B = ctx.put(a.astype(dtype)), ctx.put(b.astype(dtype))
    x = torch.nn.Parameter(ctx.put(np.zeros(6, dtype=dtype)))
    opts = {"strong-wolfe": {"line_search_fn": "strong_wolfe"}, "history-2": {"history_size": 2}}
    # Without a line search, a step of 1 can overshoot: lr 0.5 keeps the iteration stable.
    lr = 1.0 if search == "strong-wolfe" else 0.5
    # float64 can go further than the default stopping tolerances (loss change 1e-9 stops
    # about 3e-5 from the minimum).
    stops = {"tolerance_grad": 1e-10, "tolerance_change": 1e-14} if dtype == "float64" else {}
    opt = torch.optim.LBFGS([x], lr=lr, max_iter=200, **stops, **opts.get(search, {}))

    def closure():
        opt.zero_grad()
        loss = 0.5 * x @ (A @ x) - B @ x
        loss.backward()
        return loss

    ctx.measure(opt.step, closure, warm=False)
    tol = 1e-3 if dtype == "float32" else 1e-6
    ctx.check_close(x.detach(), np.linalg.solve(a, b), rtol=tol, atol=tol)


@sweep(
    "{form}-sweep",
    form=[
        "several-params",
        "max-eval-bounds-calls",
        "converged-stops",
        "returns-first-loss",
        "complex-params",
    ],
)
def lbfgs_forms(ctx, form):
    import torch

    if form == "complex-params":
        if not ctx.version_at_least("2.0"):
            ctx.skip(
                f"complex parameters came to LBFGS in the 2.x line; {ctx.version} refuses them "
                '("gt_cpu" not implemented for ComplexDouble)'
            )
        # |z - c|^2 over complex z: minimised at c (the real view is optimised).
        c_np = ctx.rng.standard_normal(4) + 1j * ctx.rng.standard_normal(4)
        c = ctx.put(c_np)
        z = torch.nn.Parameter(ctx.put(np.zeros(4, dtype="complex128")))
        opt = torch.optim.LBFGS([z], line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = ((z - c).abs() ** 2).sum()
            loss.backward()
            return loss

        ctx.measure(opt.step, closure, warm=False)
        ctx.check_close(z.detach(), c_np, rtol=1e-6, atol=1e-6)
        return
    t_np = ctx.rng.standard_normal(3)
    t = ctx.put(t_np)
    x = torch.nn.Parameter(ctx.put(np.zeros(3)))
    y = torch.nn.Parameter(ctx.put(np.ones(2)))
    calls = []
    opts = {"max-eval-bounds-calls": {"max_iter": 50, "max_eval": 7}}.get(form, {})
    opt = torch.optim.LBFGS([x, y], line_search_fn="strong_wolfe", **opts)

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = ((x - t) ** 2).sum() + ((y + 2) ** 2).sum()
        loss.backward()
        return loss

    if form == "converged-stops":
        # At the minimum already: the first gradient is below tolerance_grad, one call only.
        with torch.no_grad():
            x.copy_(t)
            y.fill_(-2)
    loss0 = ctx.measure(opt.step, closure, warm=False)
    if form == "several-params":
        ctx.check_close(x.detach(), t_np, rtol=1e-6, atol=1e-6, what="first parameter")
        ctx.check_close(y.detach(), [-2.0, -2.0], rtol=1e-6, atol=1e-6, what="second parameter")
    elif form == "max-eval-bounds-calls":
        ctx.check(len(calls) <= 7, f"{len(calls)} closure calls for max_eval=7", "other")
    elif form == "converged-stops":
        ctx.check(len(calls) == 1, f"{len(calls)} closure calls at the minimum", "other")
    else:
        # step returns the loss of the first closure call (before any update).
        expected = ((0 - t_np) ** 2).sum() + 2 * 9.0
        ctx.check_close(loss0, expected, dtype="float64")


# The study's kinds of paths (issue #33): the refusals with class and message (parameter
# groups, a step without its closure, an unknown line search), a run checkpointed through
# torch.save/torch.load mid-optimization (the history is in the state) that continues as if
# never interrupted, and the full grid of line search x history size.
@sweep("raises-{arg}", arg=["param-groups", "no-closure", "line-search"])
def lbfgs_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    x = torch.nn.Parameter(ctx.put(np.ones(2)))
    if arg == "param-groups":
        y = torch.nn.Parameter(ctx.put(np.ones(1)))
        refusal(
            ctx,
            lambda: torch.optim.LBFGS([{"params": [x]}, {"params": [y]}]),
            ValueError,
            "doesn't support per-parameter options",
        )
        return
    opt = torch.optim.LBFGS([x], line_search_fn="backtrack" if arg == "line-search" else None)

    def closure():
        opt.zero_grad()
        loss = ((x - 3) ** 2).sum()
        loss.backward()
        return loss

    if arg == "no-closure":
        refusal(ctx, opt.step, TypeError, "closure", warm=False)
    else:
        refusal(
            ctx,
            lambda: opt.step(closure),
            RuntimeError,
            "only 'strong_wolfe' is supported",
            warm=False,
        )


def _quadratic_problem(ctx):
    u = ctx.rng.standard_normal(5)
    a = np.diag(np.linspace(1.0, 6.0, 5)) + 0.4 * np.outer(u, u)
    return a, ctx.rng.standard_normal(5)


@case("checkpoint-saved-checkpoint")
def lbfgs_checkpoint(ctx):
    import torch
    from _torchhelp import saved

    a, b = _quadratic_problem(ctx)
    A, B = ctx.put(a), ctx.put(b)

    def run(steps, x, opt):
        def closure():
            opt.zero_grad()
            loss = 0.5 * x @ (A @ x) - B @ x
            loss.backward()
            return loss

        for _ in range(steps):
            opt.step(closure)

    # Uninterrupted: four steps of at most 2 iterations each.
    x_ref = torch.nn.Parameter(ctx.put(np.zeros(5)))
    run(4, x_ref, torch.optim.LBFGS([x_ref], max_iter=2, history_size=4))
    # Two steps, a checkpoint of parameter and optimizer (history included), two more.
    x = torch.nn.Parameter(ctx.put(np.zeros(5)))
    opt = torch.optim.LBFGS([x], max_iter=2, history_size=4)
    run(2, x, opt)
    checkpoint = saved({"x": x.detach(), "opt": opt.state_dict()})
    x2 = torch.nn.Parameter(checkpoint["x"].clone())
    opt2 = torch.optim.LBFGS([x2], max_iter=2, history_size=4)
    opt2.load_state_dict(checkpoint["opt"])
    ctx.measure(run, 2, x2, opt2, warm=False)
    ctx.check_close(x2.detach(), ctx.to_numpy(x_ref.detach()), dtype="float64", kind="linalg")


@sweep("flags-{search}-history{history}", search=["none", "strong-wolfe"], history=["2", "100"])
def lbfgs_grid(ctx, search, history):
    import torch

    a, b = _quadratic_problem(ctx)
    A, B = ctx.put(a), ctx.put(b)
    x = torch.nn.Parameter(ctx.put(np.zeros(5)))
    opt = torch.optim.LBFGS(
        [x],
        lr=1.0 if search == "strong-wolfe" else 0.5,
        max_iter=300,
        history_size=int(history),
        tolerance_grad=1e-10,
        tolerance_change=1e-14,
        line_search_fn="strong_wolfe" if search == "strong-wolfe" else None,
    )

    def closure():
        opt.zero_grad()
        loss = 0.5 * x @ (A @ x) - B @ x
        loss.backward()
        return loss

    ctx.measure(opt.step, closure, warm=False)
    ctx.check_close(x.detach(), np.linalg.solve(a, b), rtol=1e-6, atol=1e-6)
