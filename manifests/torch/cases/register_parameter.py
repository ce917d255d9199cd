"""torch.nn.Module.register_parameter: parameters appear in parameters(), state_dict and
optimizers, move with .to(), and None registers an absent parameter."""

import numpy as np

from portbench_runner.api import case


@case("listed-and-in-state-dict")
def register_parameter_listed(ctx):
    import torch

    module = torch.nn.Module()
    p = torch.nn.Parameter(torch.ones(3))
    ctx.measure(module.register_parameter, "scale", p, warm=False)
    ctx.check(
        next(iter(module.parameters())) is p and "scale" in module.state_dict(),
        "parameter not registered",
    )


@case("trained-by-optimizer")
def register_parameter_trained(ctx):
    import torch

    module = torch.nn.Module()
    ctx.measure(module.register_parameter, "w", torch.nn.Parameter(torch.zeros(2)), warm=False)
    module.to(ctx.device)
    opt = torch.optim.SGD(module.parameters(), lr=0.5)
    (module.w * ctx.put(np.array([1.0, 2.0], dtype="float32"))).sum().backward()
    opt.step()
    ctx.check_close(module.w.detach(), [-0.5, -1.0], dtype="float32")


@case("none-is-absent")
def register_parameter_none(ctx):
    import torch

    module = torch.nn.Module()
    ctx.measure(module.register_parameter, "bias", None, warm=False)
    ctx.check(
        module.bias is None and len(list(module.parameters())) == 0, "None parameter is listed"
    )
