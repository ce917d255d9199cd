"""torch.nn.Module.state_dict: keys, tensors (detached), buffers, round trip via load_state_dict."""

from portbench_runner.api import case


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
