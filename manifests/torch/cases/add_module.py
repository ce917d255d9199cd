"""torch.nn.Module.add_module: registers children (named, listed, moved with the module)."""

import numpy as np

from portbench_runner.api import case


@case("child-is-registered")
def add_module_registered(ctx):
    import torch

    parent = torch.nn.Module()
    ctx.measure(parent.add_module, "fc", torch.nn.Linear(3, 2), warm=False)
    ctx.check(dict(parent.named_children()).keys() == {"fc"}, "fc is not a child")
    ctx.check(len(list(parent.parameters())) == 2, "the child's parameters are not the parent's")


@case("moves-with-parent")
def add_module_moves(ctx):
    import torch

    parent = torch.nn.Module()
    ctx.measure(parent.add_module, "fc", torch.nn.Linear(4, 4), warm=False)
    parent.to(ctx.device)
    ctx.check(
        parent.fc.weight.device.type == ctx.device.type,
        f"child stayed on {parent.fc.weight.device}",
    )


@case("forward-uses-child")
def add_module_forward(ctx):
    import torch

    class Wrapper(torch.nn.Module):
        def forward(self, x):
            return self.scale(x)

    model = Wrapper()
    ctx.measure(model.add_module, "scale", torch.nn.Identity(), warm=False)
    model.to(ctx.device)
    x = ctx.put(np.arange(3, dtype="float32"))
    ctx.check_equal(model(x), [0.0, 1.0, 2.0])


@case("bad-name-refused")
def add_module_bad_name(ctx):
    import torch

    parent = torch.nn.Module()

    def attempt():
        try:
            parent.add_module("a.b", torch.nn.Identity())
        except KeyError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "a dotted child name was accepted")
