"""torch.nn.Module.state_dict: keys, tensors (detached), buffers, round trip via load_state_dict."""

import numpy as np
from _torchhelp import COMPLEX_DTYPES, FLOAT_DTYPES

from portbench_runner.api import case, sweep


@case("keys-and-values")
def state_dict_keys(ctx):
    import torch

    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3)).to(ctx.device)
    state = ctx.measure(model.state_dict)
    expected = {
        "0.weight",
        "0.bias",
        "1.weight",
        "1.bias",
        "1.running_mean",
        "1.running_var",
        "1.num_batches_tracked",
    }
    ctx.check(set(state) == expected, f"keys {sorted(state)}")
    ctx.check(not state["0.weight"].requires_grad, "state_dict tensors require grad")


@case("round-trip")
def state_dict_round_trip(ctx):
    import torch

    torch.manual_seed(ctx.seed)
    a = torch.nn.Linear(8, 8).to(ctx.device)
    b = torch.nn.Linear(8, 8).to(ctx.device)
    b.load_state_dict(ctx.measure(a.state_dict))
    ctx.check_equal(ctx.to_numpy(b.weight), ctx.to_numpy(a.weight))


@case("large-model")
def state_dict_large(ctx):
    import torch

    model = torch.nn.Sequential(*[torch.nn.Linear(256, 256) for _ in range(20)]).to(ctx.device)
    state = ctx.measure(model.state_dict)
    ctx.check(
        len(state) == 40 and all(t.device.type == ctx.device.type for t in state.values()),
        "wrong entries",
    )


def _net(ctx, dtype="float32"):
    import torch

    torch.manual_seed(ctx.seed)
    net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 2))
    return net.to(device=ctx.device, dtype=getattr(torch, dtype))


# Parameters of every float and complex dtype: state_dict keeps dtype and values, and a
# round trip through load_state_dict reproduces them exactly.
@sweep("{dtype}-sweep", dtype=FLOAT_DTYPES + COMPLEX_DTYPES)
def state_dict_dtypes(ctx, dtype):
    import torch

    dt = getattr(torch, dtype)
    a, b = _net(ctx, dtype), _net(ctx, dtype)
    with torch.no_grad():
        for p in b.parameters():
            p.zero_()
    state = ctx.measure(a.state_dict)
    ctx.check(all(t.dtype == dt for t in state.values()), "state_dict changed a dtype")
    result = b.load_state_dict(state)
    ctx.check(not result.missing_keys and not result.unexpected_keys, f"load reported {result}")
    for name, p in b.named_parameters():
        ctx.check_equal(ctx.to_numpy(p), ctx.to_numpy(dict(a.named_parameters())[name]), name)


def _refused(fn):
    try:
        fn()
    except RuntimeError as exc:
        return str(exc)
    return None


@sweep(
    "{form}-form",
    form=[
        "strict-missing-raises",
        "strict-unexpected-raises",
        "non-strict-reports",
        "shape-mismatch-raises",
        "dtype-converts-on-load",
        "assign",
        "keep-vars",
        "prefix",
        "shares-storage",
        "buffers-persistent",
        "compiled-module-keys",
    ],
)
def state_dict_forms(ctx, form):
    import torch

    net = _net(ctx)
    state = net.state_dict()
    if form == "strict-missing-raises":
        del state["1.bias"]
        msg = ctx.measure(_refused, lambda: net.load_state_dict(state), warm=False)
        ctx.check(msg is not None and "1.bias" in msg, f"a missing key was accepted: {msg}")
    elif form == "strict-unexpected-raises":
        state["2.weight"] = torch.zeros(1)
        msg = ctx.measure(_refused, lambda: net.load_state_dict(state), warm=False)
        ctx.check(msg is not None and "2.weight" in msg, f"an unexpected key was accepted: {msg}")
    elif form == "non-strict-reports":
        del state["0.bias"]
        state["extra"] = torch.ones(1)
        state["1.weight"] = torch.full((2, 3), 7.0)
        result = ctx.measure(net.load_state_dict, state, strict=False, warm=False)
        ctx.check(
            list(result.missing_keys) == ["0.bias"] and list(result.unexpected_keys) == ["extra"],
            f"strict=False reported {result}",
        )
        ctx.check_equal(ctx.to_numpy(net[1].weight), np.full((2, 3), 7.0, dtype="float32"))
    elif form == "shape-mismatch-raises":
        # A wrong shape is refused even with strict=False (strict only governs keys).
        state["0.weight"] = torch.zeros(5, 5)
        msg = ctx.measure(_refused, lambda: net.load_state_dict(state, strict=False), warm=False)
        ctx.check(msg is not None and "size mismatch" in msg, f"a wrong shape loaded: {msg}")
    elif form == "dtype-converts-on-load":
        # Loading float64 values copies them into the float32 parameters (cast, same tensor).
        before = net[0].weight
        values = {k: v.double() + 1 for k, v in state.items()}
        ctx.measure(net.load_state_dict, values, warm=False)
        ctx.check(net[0].weight is before and before.dtype == torch.float32, "param replaced")
        want = ctx.to_numpy(values["0.weight"]).astype("float32")
        ctx.check_equal(ctx.to_numpy(net[0].weight), want)
    elif form == "assign":
        if "assign" not in net.load_state_dict.__code__.co_varnames:
            ctx.skip(f"load_state_dict(assign=) arrived in torch 2.1 ({ctx.version})")
        values = {k: v.double() for k, v in state.items()}
        ctx.measure(net.load_state_dict, values, assign=True, warm=False)
        # assign=True keeps the given tensors' properties instead of copying into the old ones.
        ctx.check(net[0].weight.dtype == torch.float64, f"assign gave {net[0].weight.dtype}")
        ctx.check(isinstance(net[0].weight, torch.nn.Parameter), "assign lost the Parameter")
    elif form == "keep-vars":
        kept = ctx.measure(net.state_dict, keep_vars=True)
        ctx.check(kept["0.weight"] is net[0].weight, "keep_vars=True did not return the params")
    elif form == "prefix":
        keys = list(ctx.measure(net.state_dict, prefix="model."))
        ctx.check(keys[0] == "model.0.weight" and len(keys) == 4, f"prefixed keys {keys}")
    elif form == "shares-storage":
        state = ctx.measure(net.state_dict)
        ctx.check(
            state["0.weight"].data_ptr() == net[0].weight.data_ptr(),
            "state_dict copied the parameters (it returns detached references)",
            "other",
        )
    elif form == "buffers-persistent":
        net.register_buffer("kept", torch.ones(2, device=ctx.device))
        net.register_buffer("scratch", torch.ones(2, device=ctx.device), persistent=False)
        keys = set(ctx.measure(net.state_dict))
        ctx.check("kept" in keys and "scratch" not in keys, f"buffer keys {sorted(keys)}")
    else:
        # torch.compile wraps the module: its state_dict names carry the `_orig_mod.` prefix.
        compiled = ctx.compiled(net)
        compiled(ctx.put(np.zeros((1, 4), dtype="float32")))
        keys = list(ctx.measure(compiled.state_dict))
        ctx.check(keys == [f"_orig_mod.{k}" for k in state], f"compiled keys {keys}")


@sweep("{hook}-hook", hook=["load-pre", "load-post", "load-post-clears", "state-dict-post"])
def state_dict_hooks(ctx, hook):
    import torch

    net = _net(ctx)
    fired = []
    if hook == "load-pre":
        # A pre-hook renames a checkpoint's old key before the keys are matched.
        def rename(*args):
            # The public hook gets the module first; the private (1.12) one does not.
            state, prefix = args[1:3] if isinstance(args[0], torch.nn.Module) else args[:2]
            fired.append(prefix)
            if prefix + "old_weight" in state:
                state[prefix + "weight"] = state.pop(prefix + "old_weight")

        register = getattr(net[0], "register_load_state_dict_pre_hook", None)
        if register is None:  # torch 1.12 has only the private form
            register = net[0]._register_load_state_dict_pre_hook
        register(rename)
        state = net.state_dict()
        state["0.old_weight"] = torch.full((3, 4), 2.0)
        del state["0.weight"]
        ctx.measure(net.load_state_dict, state, warm=False)
        ctx.check(fired == ["0."], f"the pre-hook fired for {fired}")
        ctx.check_equal(ctx.to_numpy(net[0].weight), np.full((3, 4), 2.0, dtype="float32"))
    elif hook in ("load-post", "load-post-clears"):

        def post(module, incompatible):
            fired.append(list(incompatible.missing_keys))
            if hook == "load-post-clears":
                incompatible.missing_keys.clear()  # the hook may excuse what is missing

        net.register_load_state_dict_post_hook(post)
        state = net.state_dict()
        del state["1.bias"]
        msg = ctx.measure(_refused, lambda: net.load_state_dict(state), warm=False)
        ctx.check(fired == [["1.bias"]], f"the post-hook saw {fired}")
        if hook == "load-post":
            ctx.check(msg is not None, "strict load with a missing key did not raise")
        else:
            ctx.check(msg is None, f"a cleared missing key still raised: {msg}")
    else:

        def post(module, state, prefix, local_metadata):
            state[prefix + "note"] = torch.tensor(1.0)

        net[1]._register_state_dict_hook(post)
        state = ctx.measure(net.state_dict)
        ctx.check("1.note" in state and len(state) == 5, f"hooked keys {sorted(state)}")


# The study's kinds of paths (issue #33): a checkpoint through torch.save/torch.load in
# every float and complex dtype (values and dtypes come back exactly into a fresh model),
# the refusal of a state dict that is no mapping (class and message), and indexing forms of
# the returned OrderedDict (keys in registration order, values by key, a nested prefix).
@sweep("checkpoint-saved-{dtype}", dtype=FLOAT_DTYPES + COMPLEX_DTYPES)
def state_dict_saved(ctx, dtype):
    import torch
    from _torchhelp import saved

    dt = getattr(torch, dtype)
    a, b = _net(ctx, dtype), _net(ctx, dtype)
    with torch.no_grad():
        for p in b.parameters():
            p.zero_()
    checkpoint = saved(a.state_dict())
    result = ctx.measure(b.load_state_dict, checkpoint, warm=False)
    ctx.check(not result.missing_keys and not result.unexpected_keys, f"load reported {result}")
    for name, p in b.named_parameters():
        ctx.check(p.dtype == dt, f"{name} came back as {p.dtype}", "type")
        ctx.check_equal(ctx.to_numpy(p), ctx.to_numpy(dict(a.named_parameters())[name]), name)


@case("raises-not-a-mapping")
def state_dict_raises(ctx):
    from _torchhelp import refusal

    net = _net(ctx)
    refusal(
        ctx, lambda: net.load_state_dict([1, 2]), TypeError, "Expected state_dict to be dict-like"
    )


@sweep("index-{form}", form=["key-order", "by-key", "nested-prefix"])
def state_dict_indexing(ctx, form):
    import torch

    net = _net(ctx)
    if form == "nested-prefix":
        outer = torch.nn.Sequential(torch.nn.Sequential(net))
        keys = list(ctx.measure(outer.state_dict))
        ctx.check(
            keys == ["0.0.0.weight", "0.0.0.bias", "0.0.1.weight", "0.0.1.bias"], f"keys {keys}"
        )
        return
    state = ctx.measure(net.state_dict)
    if form == "key-order":
        ctx.check(
            list(state) == ["0.weight", "0.bias", "1.weight", "1.bias"], f"keys {list(state)}"
        )
    else:
        ctx.check_equal(state["1.bias"], ctx.to_numpy(net[1].bias.detach()))
