"""torch.nn.Module.add_module: registers children (named, listed, moved with the module)."""

import numpy as np
from _torchhelp import COMPLEXES, FULL_FLOATS, HALF_FLOATS

from portbench_runner.api import case, sweep


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


# A child added with add_module follows the parent's .to(dtype) in every floating dtype
# (integer dtypes are refused by Module.to).
@sweep("to-{dtype}-sweep", dtype=HALF_FLOATS + FULL_FLOATS + COMPLEXES)
def add_module_dtypes(ctx, dtype):
    import torch

    parent = torch.nn.Module()
    child = torch.nn.Linear(4, 3)
    w32 = child.weight.detach().clone()
    ctx.measure(parent.add_module, "fc", child, warm=False)
    parent.to(device=ctx.device, dtype=getattr(torch, dtype))
    ctx.check(parent.fc.weight.dtype == getattr(torch, dtype), f"child is {parent.fc.weight.dtype}")
    # The parameters' values are the float32 initialisation cast to the dtype (no forward:
    # that would test Linear's kernels, not add_module).
    w = np.asarray(ctx.to_numpy(parent.fc.weight)).astype("complex128")
    ctx.check_close(w, np.asarray(ctx.to_numpy(w32)).astype("float64"), dtype=dtype)


@sweep(
    "{form}-sweep",
    form=[
        "replaces-existing",
        "none-placeholder",
        "non-module-refused",
        "attribute-clash-refused",
        "empty-name-refused",
        "state-dict-keys",
        "nested-named-modules",
        "order-kept",
    ],
)
def add_module_forms(ctx, form):
    import torch

    parent = torch.nn.Module()

    def refused(fn, errors):
        try:
            fn()
        except errors:
            return True
        return False

    if form == "replaces-existing":
        parent.add_module("child", torch.nn.Linear(2, 2))
        new = torch.nn.Tanh()
        ctx.measure(parent.add_module, "child", new, warm=False)
        ctx.check(parent.child is new and len(list(parent.parameters())) == 0, "not replaced")
    elif form == "none-placeholder":
        # None reserves the name: listed among the modules' names, no parameters.
        ctx.measure(parent.add_module, "slot", None, warm=False)
        ctx.check("slot" in parent._modules and parent.slot is None, "None was not registered")
        ctx.check(list(parent.children()) == [], "a None child is iterated")
    elif form == "non-module-refused":
        ok = ctx.measure(refused, lambda: parent.add_module("x", 3), TypeError)
        ctx.check(ok, "an int was added as a module", "type")
    elif form == "attribute-clash-refused":
        parent.weight_scale = 2.0
        ok = ctx.measure(
            refused, lambda: parent.add_module("weight_scale", torch.nn.Identity()), KeyError
        )
        ctx.check(ok, "a child shadowed an existing attribute", "other")
    elif form == "empty-name-refused":
        ok = ctx.measure(refused, lambda: parent.add_module("", torch.nn.Identity()), KeyError)
        ctx.check(ok, "an empty child name was accepted", "other")
    elif form == "state-dict-keys":
        ctx.measure(parent.add_module, "bn", torch.nn.BatchNorm1d(3), warm=False)
        keys = set(parent.state_dict())
        want = {
            "bn.weight",
            "bn.bias",
            "bn.running_mean",
            "bn.running_var",
            "bn.num_batches_tracked",
        }
        ctx.check(keys == want, f"state_dict keys {sorted(keys)}")
    elif form == "nested-named-modules":
        inner = torch.nn.Module()
        inner.add_module("leaf", torch.nn.ReLU())
        ctx.measure(parent.add_module, "inner", inner, warm=False)
        names = [n for n, _ in parent.named_modules()]
        ctx.check(names == ["", "inner", "inner.leaf"], f"named_modules {names}")
    else:
        # Children are kept in the order they were added: Sequential-like iteration.
        for name in ("c", "a", "b"):
            parent.add_module(name, torch.nn.Identity())
        order = ctx.measure(lambda: [n for n, _ in parent.named_children()])
        ctx.check(order == ["c", "a", "b"], f"order {order}")


# The study's kinds of paths (issue #33): the refusal of a non-string name (class and
# message), children reached by dotted path (get_submodule) and its refusal, and a state
# dict round trip through torch.save into a fresh parent built the same way.
@sweep("raises-{arg}", arg=["name-not-str", "get-submodule-missing"])
def add_module_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    parent = torch.nn.Module()
    if arg == "name-not-str":
        refusal(
            ctx,
            lambda: parent.add_module(3, torch.nn.Identity()),
            TypeError,
            "module name should be a string",
        )
        return
    if not hasattr(parent, "get_submodule"):
        ctx.skip(f"Module.get_submodule arrived in torch 1.9 ({ctx.version})")
    parent.add_module("inner", torch.nn.Module())
    refusal(ctx, lambda: parent.get_submodule("inner.absent"), AttributeError, "absent")


@sweep("index-{form}", form=["get-submodule", "getattr", "modules-dict"])
def add_module_indexing(ctx, form):
    import torch

    parent = torch.nn.Module()
    inner = torch.nn.Module()
    leaf = torch.nn.Linear(2, 2)
    inner.add_module("leaf", leaf)
    parent.add_module("inner", inner)
    if form == "get-submodule":
        if not hasattr(parent, "get_submodule"):
            ctx.skip(f"Module.get_submodule arrived in torch 1.9 ({ctx.version})")
        got = ctx.measure(parent.get_submodule, "inner.leaf")
    elif form == "getattr":
        got = ctx.measure(lambda: parent.inner.leaf)
    else:
        got = ctx.measure(lambda: parent._modules["inner"]._modules["leaf"])
    ctx.check(got is leaf, f"{form} reached {type(got).__name__}, not the added Linear")


@case("checkpoint-state-dict-saved")
def add_module_restore(ctx):
    import torch
    from _torchhelp import saved

    def build():
        parent = torch.nn.Module()
        parent.add_module("fc", torch.nn.Linear(4, 3))
        parent.add_module("bn", torch.nn.BatchNorm1d(3))
        return parent.to(ctx.device)

    torch.manual_seed(ctx.seed)
    source = build()
    source.bn(source.fc(ctx.put(ctx.rng.standard_normal((6, 4)).astype("float32"))))  # stats
    checkpoint = saved(source.state_dict())
    torch.manual_seed(ctx.seed + 1)
    target = build()
    result = ctx.measure(target.load_state_dict, checkpoint, warm=False)
    ctx.check(not result.missing_keys and not result.unexpected_keys, f"load reported {result}")
    for name, value in source.state_dict().items():
        ctx.check_equal(target.state_dict()[name], ctx.to_numpy(value), what=name)
