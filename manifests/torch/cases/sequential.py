"""torch.nn.Sequential: composes modules in order; indexing, append, OrderedDict names, grads."""

import collections

import numpy as np
from _torchhelp import FLOAT_DTYPES, MODES, NET_TOL, gradcheck, param_values

from portbench_runner.api import case, sweep


@case("linear-relu-linear")
@case("linear-relu-linear-float64", dtype="float64")
def sequential_forward(ctx, dtype="float32"):
    import torch

    torch.manual_seed(ctx.seed)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).to(
        device=ctx.device, dtype=getattr(torch, dtype)
    )
    x = ctx.rng.standard_normal((32, 8)).astype(dtype)
    with torch.no_grad():
        out = ctx.measure(model, ctx.put(x))
    w1, b1, w2, b2 = (ctx.to_numpy(p).astype("float64") for p in model.parameters())
    expected = np.maximum(x.astype("float64") @ w1.T + b1, 0) @ w2.T + b2
    ctx.check_close(out, expected, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)


@case("ordered-dict-and-indexing")
def sequential_names(ctx):
    import torch

    model = ctx.measure(
        torch.nn.Sequential,
        collections.OrderedDict([("scale", torch.nn.Identity()), ("act", torch.nn.Tanh())]),
        warm=False,
    )
    ctx.check(
        isinstance(model.act, torch.nn.Tanh)
        and isinstance(model[0], torch.nn.Identity)
        and len(model) == 2,
        "names or order lost",
    )


@case("deep-stack")
def sequential_deep(ctx):
    import torch

    model = torch.nn.Sequential(*[torch.nn.Linear(64, 64, bias=False) for _ in range(50)]).to(
        ctx.device
    )
    with torch.no_grad():
        for layer in model:
            layer.weight.copy_(torch.eye(64))
        out = ctx.measure(model, ctx.put(np.arange(64, dtype="float32").reshape(1, 64)))
    ctx.check_close(out, np.arange(64).reshape(1, 64), dtype="float32")


def _affine(a, b):
    """A 1 -> 1 Linear computing a * x + b (float64), so a stack's output is known exactly."""
    import torch

    layer = torch.nn.Linear(1, 1).to(torch.float64)
    with torch.no_grad():
        layer.weight.fill_(a)
        layer.bias.fill_(b)
    return layer


def _compose(coeffs, x):
    for a, b in coeffs:
        x = a * x + b
    return x


# The container's mutating methods: each changes order, names and the computed function.
# Start from [f0, f1, f2] with f_i(x) = a_i x + b_i, apply the method, then check names
# (as Sequential renumbers them), length and the forward against the NumPy composition.
@sweep(
    "{method}-method",
    method=[
        "append",
        "insert",
        "insert-negative",
        "extend",
        "setitem",
        "setitem-negative",
        "delitem",
        "delitem-slice",
        "pop",
        "slice",
        "add",
        "iadd",
        "mul",
    ],
)
def sequential_mutations(ctx, method):
    import torch

    attr = {"setitem": "__setitem__", "setitem-negative": "__setitem__", "delitem": "__delitem__"}
    attr.update({"delitem-slice": "__delitem__", "slice": "__getitem__", "add": "__add__"})
    attr.update({"iadd": "__iadd__", "mul": "__mul__", "insert-negative": "insert"})
    name = attr.get(method, method)
    if not hasattr(torch.nn.Sequential, name):
        ctx.skip(f"Sequential.{name} is absent in torch {ctx.version} (added in a later release)")
    coeffs = [(2.0, 1.0), (-1.0, 0.5), (3.0, -2.0)]
    seq = torch.nn.Sequential(*[_affine(a, b) for a, b in coeffs])
    new = (0.5, 4.0)
    act = {
        "append": lambda: seq.append(_affine(*new)),
        "insert": lambda: seq.insert(1, _affine(*new)),
        "insert-negative": lambda: seq.insert(-1, _affine(*new)),
        "extend": lambda: seq.extend([_affine(*new), _affine(1.0, 1.0)]),
        "setitem": lambda: seq.__setitem__(1, _affine(*new)),
        "setitem-negative": lambda: seq.__setitem__(-1, _affine(*new)),
        "delitem": lambda: seq.__delitem__(0),
        "delitem-slice": lambda: seq.__delitem__(slice(0, 2)),
        "pop": lambda: seq.pop(1),
        "slice": lambda: seq[1:],
        "add": lambda: seq + torch.nn.Sequential(_affine(*new)),
        "iadd": lambda: seq.__iadd__(torch.nn.Sequential(_affine(*new))),
        "mul": lambda: seq * 2,
    }[method]
    want = {
        "append": [*coeffs, new],
        "insert": [coeffs[0], new, *coeffs[1:]],
        # insert(-1, m) puts m before the last module, as list.insert does.
        "insert-negative": [*coeffs[:2], new, coeffs[2]],
        "extend": [*coeffs, new, (1.0, 1.0)],
        "setitem": [coeffs[0], new, coeffs[2]],
        "setitem-negative": [*coeffs[:2], new],
        "delitem": coeffs[1:],
        "delitem-slice": coeffs[2:],
        "pop": [coeffs[0], coeffs[2]],
        "slice": coeffs[1:],
        "add": [*coeffs, new],
        "iadd": [*coeffs, new],
        "mul": coeffs * 2,
    }[method]
    result = ctx.measure(act, warm=False)
    if method == "pop":
        ctx.check(float(result.weight) == -1.0, "pop(1) did not return the module at 1", "other")
    model = seq if method not in ("slice", "add", "mul") else result
    ctx.check(isinstance(model, torch.nn.Sequential), f"{method} gave a {type(model).__name__}")
    ctx.check(len(model) == len(want), f"{method}: {len(model)} modules, expected {len(want)}")
    names = list(model._modules)
    allowed = [[str(i) for i in range(len(want))]]
    if method == "slice":
        allowed = [["1", "2"]]  # a slice keeps the original names
    elif method.startswith("delitem"):
        # torch 1.12 keeps the survivors' names; later releases renumber them from 0.
        allowed.append({"delitem": ["1", "2"], "delitem-slice": ["2"]}[method])
    ctx.check(names in allowed, f"{method}: names {names}, expected one of {allowed}", "other")
    x = np.linspace(-2, 2, 9).reshape(9, 1)
    with torch.no_grad():
        out = model.to(ctx.device)(ctx.put(x))
    ctx.check_close(out, _compose(want, x), dtype="float64")


# The forward in every float dtype, eager and compiled, against the float64 reference.
@sweep(
    "{dtype}-{mode}-sweep",
    dtype=FLOAT_DTYPES,
    mode=MODES,
)
def sequential_dtypes(ctx, dtype, mode):
    import torch

    torch.manual_seed(ctx.seed)
    dt = getattr(torch, dtype)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))
    model = model.to(device=ctx.device, dtype=dt)
    x = ctx.put(param_values(dtype, ctx.rng.standard_normal((32, 8))), dtype=dtype)
    with torch.no_grad():
        out = ctx.measure(ctx.in_mode(mode, model), x)
    ctx.check(out.dtype == dt, f"the model returned {out.dtype}")
    w1, b1, w2, b2 = (ctx.to_numpy(p).astype("float64") for p in model.parameters())
    x_h = np.asarray(ctx.to_numpy(x)).astype("float64")
    expected = np.tanh(x_h @ w1.T + b1) @ w2.T + b2
    ctx.check_close(out, expected, rtol=NET_TOL[dtype], atol=NET_TOL[dtype])


@sweep("{form}-form", form=["empty-is-identity", "nested", "bad-index-refused"])
def sequential_forms(ctx, form):
    import torch

    x = ctx.put(np.arange(6, dtype="float64").reshape(6, 1))
    if form == "empty-is-identity":
        out, expected = ctx.measure(torch.nn.Sequential(), x), np.arange(6.0).reshape(6, 1)
    elif form == "nested":
        inner = torch.nn.Sequential(_affine(2.0, 0.0), _affine(1.0, 1.0))
        model = torch.nn.Sequential(inner, _affine(-1.0, 0.0)).to(ctx.device)
        ctx.check("0.1.weight" in model.state_dict(), "nested names are not dotted", "other")
        with torch.no_grad():
            out = ctx.measure(model, x)
        expected = -(2 * np.arange(6.0) + 1).reshape(6, 1)
    else:
        seq = torch.nn.Sequential(_affine(1.0, 0.0))

        def attempt():
            try:
                seq[3]
            except IndexError:
                return True
            return False

        ctx.check(ctx.measure(attempt), "seq[3] of a 1-module Sequential did not raise", "other")
        return
    ctx.check_close(out, expected, dtype="float64")


@case("gradcheck-float64")
def sequential_gradcheck(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    gradcheck(
        ctx, model.to(device=ctx.device, dtype=torch.float64), ctx.rng.standard_normal((2, 3))
    )


# The study's kinds of paths (issue #33): indexing and slicing forms of the container
# (negative index, step and negative slices, an empty slice, iteration), the refusals
# with class and message (index past either end, a non-module appended, a string index),
# vmap of the model over a batch of unbatched inputs, second derivatives, and the model
# through a saved state dict.
@sweep(
    "index-{form}",
    form=["negative", "slice-step", "slice-negative", "slice-empty", "iterate", "len"],
)
def sequential_indexing(ctx, form):
    import torch

    coeffs = [(2.0, 1.0), (-1.0, 0.5), (3.0, -2.0), (0.5, 0.0), (1.5, 1.0)]
    seq = torch.nn.Sequential(*[_affine(a, b) for a, b in coeffs]).to(ctx.device)
    if form == "len":
        ctx.check(ctx.measure(len, seq) == 5, f"len {len(seq)}")
        return
    picked, want = {
        "negative": (lambda: seq[-2], [coeffs[-2]]),
        "slice-step": (lambda: seq[::2], coeffs[::2]),
        "slice-negative": (lambda: seq[-3:-1], coeffs[-3:-1]),
        "slice-empty": (lambda: seq[4:2], []),
        "iterate": (lambda: torch.nn.Sequential(*list(iter(seq))[1:]), coeffs[1:]),
    }[form]
    model = ctx.measure(picked)
    x = np.linspace(-1, 1, 5).reshape(5, 1)
    with torch.no_grad():
        out = model(ctx.put(x))
    ctx.check_close(out, _compose(want, x), dtype="float64")


@sweep(
    "raises-{arg}",
    arg=["index-past-end", "index-before-start", "append-non-module", "index-str"],
)
def sequential_refusals(ctx, arg):
    import torch
    from _torchhelp import refusal

    seq = torch.nn.Sequential(torch.nn.Identity(), torch.nn.Tanh())
    attempt, error, fragment = {
        "index-past-end": (lambda: seq[2], IndexError, "index 2 is out of range"),
        "index-before-start": (lambda: seq[-3], IndexError, "index -3 is out of range"),
        "append-non-module": (lambda: seq.append(3), TypeError, "is not a Module subclass"),
        "index-str": (lambda: seq["0"], TypeError, "cannot be interpreted as an integer"),
    }[arg]
    if arg == "append-non-module" and not hasattr(seq, "append"):
        ctx.skip(f"Sequential.append is absent in torch {ctx.version} (added in a later release)")
    refusal(ctx, attempt, error, fragment)


@case("vmap-unbatched-inputs")
def sequential_vmap(ctx):
    import torch
    from _torchhelp import vmap

    torch.manual_seed(ctx.seed)
    model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    model = model.to(device=ctx.device, dtype=torch.float64)
    x_np = ctx.rng.standard_normal((6, 4))
    with torch.no_grad():
        out = ctx.measure(vmap(ctx)(model), ctx.put(x_np))
    w1, b1, w2, b2 = (ctx.to_numpy(p.detach()) for p in model.parameters())
    ctx.check_close(out, np.tanh(x_np @ w1.T + b1) @ w2.T + b2, dtype="float64", kind="reduction")


@case("grad2-gradgradcheck")
def sequential_gradgrad(ctx):
    import torch
    from _torchhelp import gradgradcheck

    torch.manual_seed(ctx.seed)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    gradgradcheck(
        ctx, model.to(device=ctx.device, dtype=torch.float64), ctx.rng.standard_normal((2, 3))
    )


@case("checkpoint-state-dict-saved")
def sequential_restore(ctx):
    import torch
    from _torchhelp import saved

    def build():
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Tanh())
        return model.to(device=ctx.device, dtype=torch.float64)

    torch.manual_seed(ctx.seed)
    source = build().train()
    source(ctx.put(ctx.rng.standard_normal((8, 3))))  # running statistics to save
    checkpoint = saved(source.state_dict())
    torch.manual_seed(ctx.seed + 1)
    target = build()
    ctx.measure(target.load_state_dict, checkpoint, warm=False)
    x = ctx.put(ctx.rng.standard_normal((5, 3)))
    with torch.no_grad():
        want, got = source.eval()(x), target.eval()(x)
    ctx.check_equal(got, ctx.to_numpy(want))
