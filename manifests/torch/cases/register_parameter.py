"""torch.nn.Module.register_parameter: parameters appear in parameters(), state_dict and
optimizers, move with .to(), and None registers an absent parameter."""

import numpy as np
from _torchhelp import COMPLEX_DTYPES, FLOAT_DTYPES, draw, placed

from portbench_runner.api import case, sweep


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


# A registered parameter of each float and complex dtype is listed, saved, differentiated and
# trained in its own dtype: one SGD step must give w - lr * dL/dw.
@sweep("{dtype}-sweep", dtype=FLOAT_DTYPES + COMPLEX_DTYPES)
def register_parameter_dtypes(ctx, dtype):
    import torch

    module = torch.nn.Module()
    w, w_h = placed(ctx, draw(ctx, (8,), dtype, -2, 2), dtype)
    p = torch.nn.Parameter(w)
    ctx.measure(module.register_parameter, "w", p, warm=False)
    ctx.check(dict(module.named_parameters()) == {"w": p}, "w is not the module's parameter")
    ctx.check(module.state_dict()["w"].dtype == p.dtype, "state_dict changed the dtype")
    c, c_h = placed(ctx, draw(ctx, (8,), dtype, -1, 1), dtype)
    opt = torch.optim.SGD(module.parameters(), lr=0.25)
    loss = (module.w * c).real.sum() if dtype.startswith("complex") else (module.w * c).sum()
    loss.backward()
    opt.step()
    # For a real loss of complex w, autograd gives dL/dre + i dL/dim = conj(c).
    grad = np.conj(c_h) if dtype.startswith("complex") else c_h
    r = {"float16": 4e-3, "bfloat16": 2e-2}.get(dtype, 1e-6)
    ctx.check_close(module.w.detach(), w_h - 0.25 * grad, rtol=r, atol=r)


@sweep(
    "{form}-form",
    form=[
        "dotted-name-refused",
        "empty-name-refused",
        "existing-attribute-refused",
        "plain-tensor-refused",
        "before-init-refused",
        "replaces-parameter",
        "frozen-not-trained",
        "integer-frozen-parameter",
        "moves-with-to",
    ],
)
def register_parameter_forms(ctx, form):
    import torch

    module = torch.nn.Module()
    one = torch.nn.Parameter(torch.ones(2, device=ctx.device))
    refusals = {
        "dotted-name-refused": (lambda: module.register_parameter("a.b", one), KeyError),
        "empty-name-refused": (lambda: module.register_parameter("", one), KeyError),
        "existing-attribute-refused": (
            lambda: module.register_parameter("training", one),
            KeyError,
        ),
        "plain-tensor-refused": (
            lambda: module.register_parameter("t", torch.ones(2, device=ctx.device)),
            TypeError,
        ),
        "before-init-refused": (
            lambda: type("Early", (torch.nn.Module,), {"__init__": _early_init})(one),
            AttributeError,
        ),
    }
    if form in refusals:
        fn, error = refusals[form]

        def attempt():
            try:
                fn()
            except error:
                return True
            return False

        ctx.check(ctx.measure(attempt), f"{form}: register_parameter did not raise", "other")
        ctx.check(len(list(module.parameters())) == 0, "a refused parameter was registered")
        return
    if form == "replaces-parameter":
        module.register_parameter("w", one)
        two = torch.nn.Parameter(torch.full((3,), 2.0, device=ctx.device))
        ctx.measure(module.register_parameter, "w", two, warm=False)
        ctx.check(module.w is two and len(list(module.parameters())) == 1, "w was not replaced")
    elif form == "frozen-not-trained":
        frozen = torch.nn.Parameter(torch.ones(2, device=ctx.device), requires_grad=False)
        ctx.measure(module.register_parameter, "w", frozen, warm=False)
        ctx.check(list(module.parameters()) == [frozen], "frozen parameter not listed")
        ctx.check(not module.w.requires_grad, "the parameter requires grad")
    elif form == "integer-frozen-parameter":
        ints = torch.nn.Parameter(torch.arange(3, device=ctx.device), requires_grad=False)
        ctx.measure(module.register_parameter, "steps", ints, warm=False)
        ctx.check_equal(module.state_dict()["steps"], [0, 1, 2])
    else:
        ctx.measure(module.register_parameter, "w", one, warm=False)
        module.to(torch.float64)
        ctx.check(module.w.dtype == torch.float64, f"to(float64) left w as {module.w.dtype}")
        ctx.check(isinstance(module.w, torch.nn.Parameter), "to() lost the Parameter")


def _early_init(self, p):
    # Registering before Module.__init__ has run: no _parameters dict exists yet.
    self.register_parameter("w", p)


# The study's kinds of paths (issue #33): the refusal of a non-string name (class and
# message); parameters reached by dotted path (get_parameter) and its refusal; and the
# registered parameters through a saved state dict into a fresh module.
@sweep("raises-{arg}", arg=["name-not-str", "get-parameter-missing"])
def register_parameter_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    module = torch.nn.Module()
    if arg == "name-not-str":
        refusal(
            ctx,
            lambda: module.register_parameter(3, None),
            TypeError,
            "parameter name should be a string",
        )
        return
    if not hasattr(module, "get_parameter"):
        ctx.skip(f"Module.get_parameter arrived in torch 1.9 ({ctx.version})")
    module.register_parameter("w", torch.nn.Parameter(torch.ones(2)))
    refusal(ctx, lambda: module.get_parameter("v"), AttributeError, "has no attribute")


@case("index-get-parameter-dotted")
def register_parameter_indexing(ctx):
    import torch

    outer, inner = torch.nn.Module(), torch.nn.Module()
    p = torch.nn.Parameter(ctx.put(np.arange(3.0)))
    inner.register_parameter("scale", p)
    outer.add_module("inner", inner)
    if not hasattr(outer, "get_parameter"):
        ctx.skip(f"Module.get_parameter arrived in torch 1.9 ({ctx.version})")
    got = ctx.measure(outer.get_parameter, "inner.scale")
    ctx.check(got is p, "get_parameter('inner.scale') is not the registered parameter")
    ctx.check(dict(outer.named_parameters()) == {"inner.scale": p}, "named_parameters")


@case("checkpoint-state-dict-saved")
def register_parameter_restore(ctx):
    import torch
    from _torchhelp import saved

    def build(values):
        module = torch.nn.Module()
        module.register_parameter("w", torch.nn.Parameter(ctx.put(values)))
        module.register_parameter("absent", None)
        return module

    source = build(ctx.rng.standard_normal(5))
    checkpoint = saved(source.state_dict())
    ctx.check(set(checkpoint) == {"w"}, f"saved keys {sorted(checkpoint)}")
    target = build(np.zeros(5))
    ctx.measure(target.load_state_dict, checkpoint, warm=False)
    ctx.check_equal(target.w, ctx.to_numpy(source.w.detach()))
    ctx.check(isinstance(target.w, torch.nn.Parameter), "the load replaced the Parameter")
