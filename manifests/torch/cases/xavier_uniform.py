"""torch.nn.init.xavier_uniform_: fills in place with U(-a, a), a = gain * sqrt(6/(fan_in+fan_out))."""

import numpy as np

from portbench_runner.api import case


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
