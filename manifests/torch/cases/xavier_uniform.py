"""torch.nn.init.xavier_uniform_: fills in place with U(-a, a), a = gain * sqrt(6/(fan_in+fan_out))."""

import numpy as np
from _torchhelp import FLOAT_DTYPES

from portbench_runner.api import case, sweep


@case("square", shape=(256, 256))
@case("rectangular", shape=(128, 512))
@case("conv-weight", shape=(64, 32, 3, 3))
@case("gain-relu", shape=(256, 256), gain="relu")
@case("float64", shape=(300, 200), dtype="float64")
def xavier_values(ctx, shape, gain=None, dtype="float32"):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    torch.manual_seed(ctx.seed)
    w = ctx.put(np.zeros(shape, dtype=dtype))
    g = torch.nn.init.calculate_gain(gain) if gain else 1.0
    out = ctx.measure(torch.nn.init.xavier_uniform_, w, gain=g, warm=False)
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    bound = g * np.sqrt(6.0 / (fan_in + fan_out))
    values = ctx.to_numpy(out)
    ctx.check(out is w, "xavier_uniform_ did not fill in place")
    ctx.check(np.abs(values).max() <= bound * (1 + 1e-6), f"values beyond the bound {bound}")
    # Uniform on [-a, a] has variance a^2 / 3; thousands of draws pin it within 10%.
    ctx.check(
        abs(values.var() / (bound**2 / 3) - 1) < 0.1, f"variance {values.var()} vs {bound**2 / 3}"
    )


@case("one-d-refused")
def xavier_1d(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    w = ctx.put(np.zeros(10, dtype="float32"))

    def attempt():
        try:
            torch.nn.init.xavier_uniform_(w)
        except ValueError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "a 1-d tensor was accepted")


def _check_uniform(ctx, values, bound, tol=1e-6):
    """In [-bound, bound] (up to the dtype's rounding) with the variance of U(-a, a)."""
    values = np.asarray(values, dtype="float64")
    ctx.check(np.abs(values).max() <= bound * (1 + tol), f"values beyond the bound {bound}")
    # Uniform on [-a, a] has variance a^2 / 3; thousands of draws pin it within 10%.
    ratio = values.var() / (bound**2 / 3)
    ctx.check(abs(ratio - 1) < 0.1, f"variance ratio {ratio} (expected 1)")
    ctx.check(abs(values.mean()) < 0.05 * bound, f"mean {values.mean()} is off centre")


# Every float dtype the initializer fills on the CPU (the bound rounds in the half widths).
@sweep("{dtype}-sweep", dtype=FLOAT_DTYPES)
def xavier_dtypes(ctx, dtype):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    torch.manual_seed(ctx.seed)
    w = torch.empty((96, 64), dtype=getattr(torch, dtype), device=ctx.device)
    out = ctx.measure(torch.nn.init.xavier_uniform_, w, warm=False)
    ctx.check(out is w and out.dtype == getattr(torch, dtype), "not filled in place")
    _check_uniform(ctx, ctx.to_numpy(out), np.sqrt(6.0 / 160), tol=2**-7)


@sweep("gain-{nonlinearity}", nonlinearity=["tanh", "sigmoid", "leaky_relu", "selu"])
def xavier_gains(ctx, nonlinearity):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    if nonlinearity == "selu" and not ctx.version_at_least("1.8"):
        ctx.skip(f"calculate_gain('selu') arrived in torch 1.8 ({ctx.version})")
    torch.manual_seed(ctx.seed)
    gain = torch.nn.init.calculate_gain(nonlinearity)
    documented = {"tanh": 5 / 3, "sigmoid": 1.0, "leaky_relu": np.sqrt(2 / (1 + 0.01**2))}
    documented["selu"] = 0.75
    ctx.check(abs(gain - documented[nonlinearity]) < 1e-12, f"gain {gain} is not documented")
    w = ctx.put(np.zeros((128, 64), dtype="float32"))
    out = ctx.measure(torch.nn.init.xavier_uniform_, w, gain=gain, warm=False)
    _check_uniform(ctx, ctx.to_numpy(out), gain * np.sqrt(6.0 / 192))


@sweep(
    "{form}-form",
    form=["non-contiguous-view", "parameter-stays-leaf", "conv1d-fans", "generator", "empty"],
)
def xavier_forms(ctx, form):
    ctx.not_comparable("draws from the device's random generator")
    import torch

    torch.manual_seed(ctx.seed)
    if form == "non-contiguous-view":
        # Filling a transposed view fills the base; fans come from the view's (128, 64) shape.
        base = ctx.put(np.zeros((64, 128), dtype="float32"))
        view = base.t()
        out = ctx.measure(torch.nn.init.xavier_uniform_, view, warm=False)
        ctx.check(out.data_ptr() == base.data_ptr(), "the view was not filled in place")
        _check_uniform(ctx, ctx.to_numpy(base), np.sqrt(6.0 / 192))
    elif form == "parameter-stays-leaf":
        p = torch.nn.Parameter(torch.zeros(100, 50, device=ctx.device))
        ctx.measure(torch.nn.init.xavier_uniform_, p, warm=False)
        ctx.check(p.is_leaf and p.grad_fn is None and p.requires_grad, "the init entered autograd")
        _check_uniform(ctx, ctx.to_numpy(p), np.sqrt(6.0 / 150))
    elif form == "conv1d-fans":
        # (out, in, k): fan_in = in * k, fan_out = out * k.
        w = ctx.put(np.zeros((32, 16, 5), dtype="float32"))
        out = ctx.measure(torch.nn.init.xavier_uniform_, w, warm=False)
        _check_uniform(ctx, ctx.to_numpy(out), np.sqrt(6.0 / (16 * 5 + 32 * 5)))
    elif form == "generator":
        import inspect

        if "generator" not in inspect.signature(torch.nn.init.xavier_uniform_).parameters:
            ctx.skip(f"xavier_uniform_(generator=) is absent in torch {ctx.version}")

        def fill(seed):
            gen = torch.Generator(device=ctx.device)
            gen.manual_seed(seed)
            w = torch.empty(20, 30, device=ctx.device)
            return ctx.to_numpy(torch.nn.init.xavier_uniform_(w, generator=gen))

        first = ctx.measure(fill, 5, warm=False)
        ctx.check(np.array_equal(first, fill(5)), "the same generator seed filled differently")
        ctx.check(not np.array_equal(first, fill(6)), "different seeds filled the same")
    else:
        import warnings

        w = ctx.put(np.zeros((0, 5), dtype="float32"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zero-element init warns that it is a no-op
            out = ctx.measure(torch.nn.init.xavier_uniform_, w, warm=False)
        ctx.check(tuple(out.shape) == (0, 5), f"shape {tuple(out.shape)}")


# The study's kinds of paths (issue #33): the refusal of a 0-d tensor (class and message),
# and checkpoint/restore of the random state: the default generator's saved state (and, on
# torch >= 2.x, a generator passed as generator=) fills the same values again.
@case("raises-0d")
def xavier_0d(ctx):
    ctx.not_comparable("draws from the device's random generator")
    import torch
    from _torchhelp import refusal

    w = ctx.put(np.array(1.0, dtype="float32"))
    refusal(
        ctx,
        lambda: torch.nn.init.xavier_uniform_(w),
        ValueError,
        "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
    )


@sweep("checkpoint-{source}", source=["default-generator", "generator-state"])
def xavier_restore(ctx, source):
    ctx.not_comparable("draws from the device's random generator")
    import inspect

    import torch
    from _torchhelp import rng_state

    w = ctx.put(np.zeros((16, 24), dtype="float32"))
    if source == "generator-state":
        if "generator" not in inspect.signature(torch.nn.init.xavier_uniform_).parameters:
            ctx.skip(f"xavier_uniform_(generator=) is absent in torch {ctx.version}")
        gen = torch.Generator(device=ctx.device)
        gen.manual_seed(ctx.seed)
        get_state, set_state = gen.get_state, gen.set_state
        fill = lambda: torch.nn.init.xavier_uniform_(w, generator=gen)  # noqa: E731
    else:
        get_state, set_state = rng_state(ctx)
        fill = lambda: torch.nn.init.xavier_uniform_(w)  # noqa: E731
    state = get_state()
    first = ctx.to_numpy(fill()).copy()

    def replay():
        set_state(state)
        return fill()

    ctx.check_equal(ctx.measure(replay, warm=False), first)
